/**
 * Verification of GitHub repositories (hosted mode) through the repo host's API, on a local
 * fake GitHub over real HTTP: the workspace token reads the repository at a branch, a
 * commit or a pull request's head, as tree and blobs; no token, an unknown repository or
 * commit are problems with their codes.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { as, testAuthenticator } from "../../helpers/actors.js";
import { FakeGitHub, type FakeRepo } from "../../helpers/fake-github.js";
import { SHOP_CODE } from "./git-helpers.js";
import type { Run } from "./verification.test.js";

const PRD = readFileSync(resolve(import.meta.dirname, "../../../fixtures/verify/giftcards/prd.md"), "utf8");
const TOKEN = "ghp_good_token_1234";

describe("verification of GitHub repositories through the repo host", () => {
  const gh = new FakeGitHub();
  let t: TestApp;
  let repo: FakeRepo;
  let main: string;
  let docId: string;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });
  beforeEach(async () => {
    gh.repos.clear();
    repo = gh.addRepo("acme", "giftcards", { private: true });
    main = gh.commit(repo, SHOP_CODE, { message: "Redeem and lock", author: "lee" });
    const pr = gh.commit(
      repo,
      {
        "src/balance.ts": "// REQ-002: the balance shows before the shopper confirms\nexport const x = 1;\n",
      },
      { branch: "balance", message: "Show the balance", author: "dana" },
    );
    repo.branches.set("balance", pr);
    repo.pulls.set(3, { files: ["src/balance.ts"], head: pr });
    const auth = testAuthenticator();
    t = await makeTestApp({ mode: "hosted", auth, repohost: { apiUrl: gh.url } });
    auth.bind(t.services);
    const made = await json<{ id: string; path: string; current_version: { id: string } }>(
      t.req("POST", "/bundles", { profile: "prd", name: "giftcards" }, as("admin")),
    );
    const put = await t.req(
      "PUT",
      `/docs/${made.id}/files/content?path=${made.path}&base_version=${made.current_version.id}`,
      PRD,
      { "content-type": "text/markdown", ...as("admin") },
    );
    expect(put.status, await put.text()).toBe(200);
    docId = made.id;
  }, 120_000);
  afterEach(() => t?.close());

  async function verify(body: Record<string, unknown>): Promise<Run> {
    const res = await t.req("POST", `/docs/${docId}/verifications`, body, as("admin"));
    const text = await res.text();
    expect(res.status, text).toBe(202);
    await t.services.verify.idle();
    return json<Run>(t.req("GET", `/verifications/${(JSON.parse(text) as Run).id}`, undefined, as("admin")));
  }
  const outcome = (run: Run, id: string) => run.outcomes.find((o) => o.trace_id === id)?.outcome;

  it("needs a token or the App; then reads the default branch, a commit and a pull request's head", async () => {
    await problem(
      await t.req("POST", `/docs/${docId}/verifications`, { repo: "acme/giftcards" }, as("admin")),
      409,
      "repohost_token_missing",
    );
    expect((await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("admin"))).status).toBe(200);

    const onMain = await verify({ repo: "acme/giftcards" });
    expect(onMain).toMatchObject({ status: "done", sha: main, branch: "main", base_sha: main });
    expect(outcome(onMain, "REQ-001")).toBe("implemented");
    expect(outcome(onMain, "REQ-003")).toBe("implemented");
    // A test name is a citation, not an implementation.
    expect(outcome(onMain, "REQ-002")).toBe("missing");

    const atCommit = await verify({ repo: "acme/giftcards", sha: main });
    expect(atCommit).toMatchObject({ status: "done", sha: main });

    const pr = await verify({ target: "https://github.com/acme/giftcards/pull/3" });
    expect(pr).toMatchObject({ status: "done", branch: "balance", base_sha: main });
    expect(outcome(pr, "REQ-002")).toBe("implemented");
    const target = pr.outcomes.find((o) => o.trace_id === "REQ-002") as unknown as {
      targets: Array<{ path: string; line: number }>;
    };
    expect(target.targets).toContainEqual(expect.objectContaining({ path: "src/balance.ts", line: 1 }));
  });

  it("answers an unknown repository, commit or pull request with its problem and queues nothing", async () => {
    expect((await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("admin"))).status).toBe(200);
    const post = (body: Record<string, unknown>) =>
      t.req("POST", `/docs/${docId}/verifications`, body, as("admin"));
    await problem(await post({ repo: "acme/nothing" }), 404, "repo_not_found");
    await problem(await post({ repo: "acme/giftcards", sha: "0".repeat(40) }), 404, "commit_not_found");
    await problem(
      await post({ target: "https://github.com/acme/giftcards/pull/99" }),
      404,
      "commit_not_found",
    );
    const list = await json<{ items: unknown[] }>(
      t.req("GET", `/docs/${docId}/verifications`, undefined, as("admin")),
    );
    expect(list.items).toEqual([]);
  });
});
