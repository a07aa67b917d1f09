/**
 * Repo-host targets through the RepoReader port (server/verify/ports.ts), as the GitHub App
 * branch will wire it: here a reader over a real local git repository stands in for the
 * repo host. What a URL names reaches the reader parsed; its problems (a private repo
 * without a token, a missing commit) come back as problem+json.
 */
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { ApiError } from "../../../server/errors.js";
import { commitContext, gitSource, readAt, resolveCommit } from "../../../server/verify/git.js";
import type { RepoRef } from "../../../server/verify/ports.js";
import { SHOP_CODE, git, makeRepo } from "./git-helpers.js";
import type { Run } from "./verification.test.js";

const FIXTURE = resolve(import.meta.dirname, "../../../fixtures/verify");

describe("verification of repo-host repositories through the RepoReader port", () => {
  let t: TestApp;
  let docId: string;
  const dir = makeRepo(SHOP_CODE);
  const asked: RepoRef[] = [];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    t = await makeTestApp({ fixture: FIXTURE });
    await t.runs.idle();
    const list = await json<{ items: { slug: string; docs: { id: string }[] }[] }>(t.req("GET", "/bundles"));
    docId = list.items.find((b) => b.slug === "giftcards")!.docs[0]!.id;
    t.services.verify.ports.repos = {
      async resolve(ref) {
        asked.push(ref);
        if (ref.repo !== "acme/giftcards")
          throw new ApiError("repo_not_found", `${ref.repo} does not exist or is private`);
        const sha = await resolveCommit(dir, ref.sha ?? ref.branch ?? "HEAD");
        if (!sha) throw new ApiError("commit_not_found", `no commit ${ref.sha ?? ref.branch}`);
        const ctx = await commitContext(dir, sha);
        return {
          repo: ref.repo,
          sha,
          branch: ref.branch ?? ctx.branch,
          base_sha: ctx.base_sha,
          changed: ctx.changed,
          ...(ref.pull_request ? { pull_request: ref.pull_request } : {}),
        };
      },
      source: (_repo, sha) => gitSource(dir, sha),
      readFile: (_repo, sha, path) => readAt(dir, sha, path),
    };
  }, 120_000);
  afterEach(() => t?.close());

  it("reads what a URL names, at the commit the reader resolves", async () => {
    const head = git(dir, "rev-parse", "HEAD");
    const resolved = await json(
      t.req("POST", `/docs/${docId}/verifications/resolve`, {
        target: "https://github.com/acme/giftcards/tree/main",
      }),
    );
    expect(resolved).toEqual({
      kind: "repo",
      repo: "acme/giftcards",
      sha: head,
      branch: "main",
      base_sha: head,
    });
    await json(
      t.req("POST", `/docs/${docId}/verifications/resolve`, {
        target: "https://github.com/acme/giftcards/pull/12",
      }),
    );
    await json(
      t.req("POST", `/docs/${docId}/verifications/resolve`, {
        target: `https://github.com/acme/giftcards/blob/${head}/src/redeem.ts`,
      }),
    );
    await json(
      t.req("POST", `/docs/${docId}/verifications/resolve`, { target: "git@github.com:acme/giftcards.git" }),
    );
    expect(asked.slice(-4)).toEqual([
      { repo: "acme/giftcards", host: "github.com", branch: "main" },
      { repo: "acme/giftcards", host: "github.com", pull_request: 12 },
      { repo: "acme/giftcards", host: "github.com", sha: head, file: "src/redeem.ts" },
      { repo: "acme/giftcards", host: "github.com" },
    ]);

    const res = await t.req("POST", `/docs/${docId}/verifications`, {
      repo: "acme/giftcards",
      sha: head.slice(0, 10),
    });
    expect(res.status).toBe(202);
    await t.services.verify.idle();
    const run = await json<Run & { repo: string; target_kind: string }>(
      t.req("GET", `/verifications/${((await res.json()) as Run).id}`),
    );
    expect(run).toMatchObject({ status: "done", target_kind: "repo", repo: "acme/giftcards", sha: head });
    expect(run.outcomes.find((o) => o.trace_id === "REQ-001")!.outcome).toBe("implemented");
    // No target: the doc's implemented-by link (https://github.com/acme/giftcards).
    const byDefault = await t.req("POST", `/docs/${docId}/verifications`, {});
    expect(byDefault.status).toBe(202);
    await t.services.verify.idle();
  });

  it("answers the reader's problems: a private repo without a token, a commit that does not exist", async () => {
    await problem(
      await t.req("POST", `/docs/${docId}/verifications`, { target: "acme/private-payments" }),
      404,
      "repo_not_found",
    );
    await problem(
      await t.req("POST", `/docs/${docId}/verifications`, {
        repo: "acme/giftcards",
        sha: "0123456789abcdef0123456789abcdef01234567",
      }),
      404,
      "commit_not_found",
    );
    expect((await json<{ items: unknown[] }>(t.req("GET", `/docs/${docId}/verifications`))).items).toEqual(
      [],
    );
  });
});
