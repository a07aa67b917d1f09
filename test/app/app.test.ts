/**
 * The GitHub App's handlers through a real Probot (its JWT, installation tokens, webhook
 * verification) against a local fake GitHub over HTTP: the Build Ready check and the one
 * sticky comment on a pull request, idempotent redeliveries, a push that syncs a source at
 * once, a failure that posts a failed check, review comments into the threads port, and a
 * webhook signed with the wrong secret.
 */
import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, type FakeRepo } from "../helpers/fake-github.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";
import {
  clearGitHub,
  payload,
  specsPullRequest,
  startHarness,
  WEBHOOK_SECRET,
  type AppHarness,
} from "./helpers.js";
import { json } from "../helpers/app.js";
import { as } from "../helpers/actors.js";

const API_MD = folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"]!;

describe("GitHub App", () => {
  const gh = new FakeGitHub();
  let h: AppHarness;
  let repo: FakeRepo;
  let base: string;
  let head: string;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });
  beforeEach(async () => {
    clearGitHub(gh);
    ({ repo, base, head } = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n"));
    h = await startHarness(gh);
  });
  afterEach(async () => {
    await h.close();
  });

  it("lints the bundles a pull request touches: one Build Ready check with annotations, one sticky comment", async () => {
    await h.probot.receive({
      id: "d-1",
      name: "pull_request",
      payload: payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }),
    } as never);
    expect(gh.checkRuns).toHaveLength(1);
    const check = gh.checkRuns[0]!.body as {
      name: string;
      head_sha: string;
      status: string;
      conclusion: string;
      output: {
        title: string;
        summary: string;
        annotations?: Array<{ path: string; annotation_level: string }>;
      };
    };
    expect(check).toMatchObject({
      name: "Build Ready",
      head_sha: head,
      status: "completed",
      conclusion: "failure",
    });
    expect(check.output.summary).toContain("specs/checkout-api/api.md");
    expect(check.output.annotations?.length).toBeGreaterThan(0);
    expect(check.output.annotations!.every((a) => a.path === "specs/checkout-api/api.md")).toBe(true);
    // Only the touched bundle was read: no blob of the other bundles.
    const blobReads = gh.calls.filter((c) => c.path.includes("/git/blobs/")).length;
    expect(blobReads).toBeLessThanOrEqual(4);
    expect(
      gh.calls.some((c) => c.method === "POST" && c.path === "/app/installations/42/access_tokens"),
    ).toBe(true);
    const comments = gh.comments.get(7)!;
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("<!-- spec-review:build-ready Build%20Ready -->");

    // The same delivery again: nothing is called.
    const n = gh.calls.length;
    await h.probot.receive({
      id: "d-1",
      name: "pull_request",
      payload: payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }),
    } as never);
    expect(gh.calls.length).toBe(n);

    // A new push to the branch: a new check, the same comment edited (not a second one).
    await h.probot.receive({
      id: "d-2",
      name: "pull_request",
      payload: payload("pull_request.synchronize", { HEAD_SHA: head, BASE_SHA: base }),
    } as never);
    expect(gh.checkRuns).toHaveLength(2);
    expect(gh.comments.get(7)).toHaveLength(1);
  });

  it("posts a failed check with the reason when it cannot read the pull request", async () => {
    const missing = "f".repeat(40);
    repo.pulls.set(7, { files: ["specs/checkout-api/api.md"], head });
    await h.probot.receive({
      id: "d-3",
      name: "pull_request",
      payload: payload("pull_request.opened", { HEAD_SHA: missing, BASE_SHA: base }),
    } as never);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({
      name: "Build Ready",
      head_sha: missing,
      conclusion: "failure",
    });
    expect((gh.checkRuns[0]!.body as { output: { summary: string } }).output.summary).toMatch(
      /^spec-review failed: .*404/,
    );
  });

  it("a push on a source's branch syncs it at once, through the App's installation", async () => {
    const src = await h.t.services.repohost!.create("https://github.com/acme/specs/tree/main/specs");
    expect(src.bundles).toBe(3);
    const after = gh.commit(
      repo,
      { "specs/checkout-api/api.md": API_MD + "\n## Changelog\n\n- Errors documented.\n" },
      { message: "Document quote errors", author: "sam" },
    );
    const before = gh.calls.length;
    await h.probot.receive({
      id: "d-4",
      name: "push",
      payload: payload("push", { BEFORE_SHA: base, AFTER_SHA: after }),
    } as never);
    const list = (await (
      await h.t.req("GET", "/bundles", undefined, { "x-test-actor": "admin" })
    ).json()) as {
      items: Array<{
        slug: string;
        docs: Array<{ current_version: { number: number; created_by: string; message: string } }>;
      }>;
    };
    const api = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!;
    expect(api.current_version).toMatchObject({
      number: 2,
      created_by: "sam",
      message: "Document quote errors",
    });
    const calls = gh.since(before).map((c) => `${c.method} ${c.path.replace(/[0-9a-f]{40}/g, "<sha>")}`);
    expect(calls).toEqual([
      "GET /repos/acme/specs/git/ref/heads/main",
      "GET /repos/acme/specs/compare/<sha>...<sha>",
      "GET /repos/acme/specs/git/blobs/<sha>",
    ]);
  });

  it("turns a review comment on a spec doc's line into a thread anchored to that line; a reply into a message", async () => {
    await h.t.services.repohost!.create("acme/specs");
    await h.probot.receive({
      id: "d-5",
      name: "pull_request_review_comment",
      payload: payload("pull_request_review_comment.created", { HEAD_SHA: head }),
    } as never);
    expect(h.threads.opened).toHaveLength(1);
    expect(h.threads.opened[0]).toMatchObject({
      file: "api.md",
      line: 33,
      quote: "A 409 means the quote expired.",
      author: { login: "lee" },
      commentId: 88001,
      pullNumber: 7,
      toAi: false,
    });
    expect(h.threads.opened[0]!.author.accountId).toBeUndefined();
    const reply = payload("pull_request_review_comment.created", { HEAD_SHA: head }) as {
      comment: Record<string, unknown>;
    };
    reply.comment = {
      ...reply.comment,
      id: 88002,
      in_reply_to_id: 88001,
      body: "@spec-review what does the ADR say?",
    };
    await h.probot.receive({ id: "d-6", name: "pull_request_review_comment", payload: reply } as never);
    expect(h.threads.replies).toEqual([
      {
        inReplyTo: 88001,
        commentId: 88002,
        body: "@spec-review what does the ADR say?",
        author: { login: "lee" },
      },
    ]);
  });

  it("with the service's threads: the comment is a thread on that line's text, the reply a message, each once", async () => {
    await h.close();
    h = await startHarness(gh, "pglite", "service");
    await h.t.services.repohost!.create("acme/specs");
    const comment = payload("pull_request_review_comment.created", { HEAD_SHA: head });
    await h.probot.receive({ id: "s-1", name: "pull_request_review_comment", payload: comment } as never);
    // A redelivery under a new id carries the same comment: still one thread.
    await h.probot.receive({ id: "s-2", name: "pull_request_review_comment", payload: comment } as never);
    const list = await json<{ items: Array<{ slug: string; docs: Array<{ id: string }> }> }>(
      h.t.req("GET", "/bundles", undefined, as("admin")),
    );
    const docId = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.id;
    const threads = await json<{ items: Array<Record<string, unknown>> }>(
      h.t.req("GET", `/docs/${docId}/threads`, undefined, as("admin")),
    );
    expect(threads.items).toHaveLength(1);
    // The line is new in the pull request, not in the doc's current version: the thread is
    // on the doc as a whole and quotes the line.
    expect(threads.items[0]).toMatchObject({
      anchor_kind: "section",
      anchor: { heading_path: [] },
      addressed_to: "humans",
      status: "open",
    });
    const reply = { ...comment } as { comment: Record<string, unknown> };
    reply.comment = { ...reply.comment, id: 88002, in_reply_to_id: 88001, body: "The `expires_at` field." };
    await h.probot.receive({ id: "s-3", name: "pull_request_review_comment", payload: reply } as never);
    await h.probot.receive({ id: "s-4", name: "pull_request_review_comment", payload: reply } as never);
    const thread = await json<{
      messages: Array<{ body: string; author_name: string; author_kind: string }>;
    }>(h.t.req("GET", `/threads/${threads.items[0]!.id as string}`, undefined, as("admin")));
    expect(thread.messages.map((m) => m.body)).toEqual([
      expect.stringMatching(
        /^Which field tells the client the quote expired\? Please name it\.\n\n> api\.md, line 33 of pull request #7: A 409 means the quote expired\.$/,
      ),
      "The `expires_at` field.",
    ]);
    // A message posted in the service is a reply under the first comment on GitHub; its own
    // webhook is not carried back in.
    gh.reviewReplies.length = 0;
    expect(
      (
        await h.t.req(
          "POST",
          `/threads/${threads.items[0]!.id as string}/messages`,
          { body: "Agreed: `expires_at`, in UTC." },
          as("admin"),
        )
      ).status,
    ).toBe(201);
    for (let i = 0; i < 100 && gh.reviewReplies.length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(gh.reviewReplies).toEqual([
      expect.objectContaining({
        pull: 7,
        inReplyTo: 88001,
        body: expect.stringContaining("Agreed: `expires_at`, in UTC."),
      }),
    ]);
    const echo = { ...comment } as { comment: Record<string, unknown> };
    echo.comment = {
      ...echo.comment,
      id: gh.reviewReplies[0]!.id,
      in_reply_to_id: 88001,
      body: gh.reviewReplies[0]!.body,
    };
    await h.probot.receive({ id: "s-9", name: "pull_request_review_comment", payload: echo } as never);
    const withReply = await json<{ messages: unknown[] }>(
      h.t.req("GET", `/threads/${threads.items[0]!.id as string}`, undefined, as("admin")),
    );
    expect(withReply.messages).toHaveLength(3);

    // Not a member: recorded by GitHub login, shown as such.
    expect(thread.messages[0]).toMatchObject({ author_name: "@lee on GitHub", author_kind: "guest" });

    // A comment on a line the current version has: the thread is anchored to that text.
    const onLine = { ...comment } as { comment: Record<string, unknown> };
    onLine.comment = {
      ...onLine.comment,
      id: 88010,
      line: 20,
      original_line: 20,
      diff_hunk: "@@ -18,3 +18,3 @@\n \n Amounts are integers in the currency's minor unit.",
      body: "Which currency is the minor unit of, the shop's or the shopper's?",
    };
    await h.probot.receive({ id: "s-5", name: "pull_request_review_comment", payload: onLine } as never);
    const after = await json<{ items: Array<Record<string, unknown>> }>(
      h.t.req("GET", `/docs/${docId}/threads`, undefined, as("admin")),
    );
    expect(after.items.find((x) => x.anchor_kind === "text")).toMatchObject({
      anchor: { file: "api.md", quote: "Amounts are integers in the currency's minor unit." },
    });
  });

  it("refuses a webhook signed with another secret, and runs one signed with the right one", async () => {
    const body = JSON.stringify(payload("installation.created"));
    const sign = (secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    await expect(
      h.probot.webhooks.verifyAndReceive({
        id: "d-7",
        name: "installation",
        payload: body,
        signature: sign("not-the-secret"),
      }),
    ).rejects.toThrow(/signature/i);
    await h.probot.webhooks.verifyAndReceive({
      id: "d-8",
      name: "installation",
      payload: body,
      signature: sign(WEBHOOK_SECRET),
    });
    expect(gh.calls).toEqual([]);
  });
});
