/**
 * Talking to the App on a pull request (app/commands.ts): `@spec-review help`, `lint`,
 * `review` and questions on the conversation and in review comments, from a member (an
 * account that linked the login) and from a stranger; each comment answered once with an
 * `eyes` reaction; the App's own comments ignored; "Re-run all checks" (`check_suite`
 * `rerequested`). The fake GitHub and a fake OpenAI server over HTTP.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { users } from "../../server/db/schema.js";
import { DB_KINDS } from "../helpers/app.js";
import { as } from "../helpers/actors.js";
import { FakeGitHub, type FakeRepo } from "../helpers/fake-github.js";
import { FakeHooks } from "../helpers/fake-github-hooks.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels } from "../core/review/e2e-helpers.js";
import {
  clearGitHub,
  payload,
  specsPullRequest,
  startHarness,
  WEBHOOK_SECRET,
  type AppHarness,
} from "./helpers.js";
import { issueComment } from "./hooks-helpers.js";

describe.each(DB_KINDS)("GitHub App: commands on a pull request (%s)", (kind) => {
  const gh = new FakeGitHub();
  const hooks = new FakeHooks(gh, WEBHOOK_SECRET);
  let fake: FakeOpenAI;
  let h: AppHarness;
  let repo: FakeRepo;
  let base: string;
  let head: string;
  let seq = 0;

  beforeAll(async () => {
    await gh.start();
    fake = await startFakeOpenAI({ handler: answerFor });
  });
  afterAll(async () => {
    await fake.close();
    await gh.stop();
  });
  beforeEach(async () => {
    clearGitHub(gh);
    hooks.reset();
    fake.reset();
    ({ repo, base, head } = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n"));
    h = await startHarness(gh, kind);
    await h.t.services.repohost!.create("acme/specs");
    // lee linked the login to a member's account; zed is nobody the workspace knows.
    await h.t.services.db.insert(users).values({
      id: randomUUID(),
      email: "lee@example.com",
      name: "Lee",
      role: "member",
      passwordHash: "scrypt$unused",
      githubLogin: "lee",
      createdAt: new Date(),
    });
  });
  afterEach(async () => {
    await h.close();
  });

  const say = (body: string, login = "lee", o: { pull?: number; id?: number; type?: "Bot" } = {}) => {
    const id = o.id ?? 700 + ++seq;
    return h.probot
      .receive({
        id: `c-${randomUUID()}`,
        name: "issue_comment",
        payload: issueComment({ id, body, login, association: "NONE", ...o }),
      } as never)
      .then(() => id);
  };
  const replies = (pull = 7) => (gh.comments.get(pull) ?? []).map((c) => c.body);

  it("help, lint and review from a member; a stranger refused; each comment answered once; the App's own ignored", async () => {
    const help = await say("@spec-review help");
    expect(hooks.reactions).toEqual([{ kind: "issue", commentId: help, content: "eyes" }]);
    expect(replies()).toEqual([expect.stringContaining("Commands for @spec-review")]);
    // The same comment again (a redelivery under a new id, or an edit): not answered twice.
    await say("@spec-review help", "lee", { id: help });
    expect(replies()).toHaveLength(1);
    expect(hooks.reactions).toHaveLength(1);

    await say("@spec-review lint");
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({ head_sha: head, status: "completed" });
    expect(replies().at(-1)).toMatch(/^The lint ran again on [0-9a-f]{7}: /);

    // No model: the review says why it did not run (and the check is the lint).
    await say("@spec-review review");
    expect(gh.checkRuns).toHaveLength(2);
    expect(replies().at(-1)).toMatch(/The full review did not run: it needs a model/);

    const before = gh.checkRuns.length;
    const stranger = await say("@spec-review review", "zed");
    expect(replies().at(-1)).toBe(
      "@zed: only a member of the spec-review workspace may give @spec-review commands on a pull request.",
    );
    expect(gh.checkRuns).toHaveLength(before);
    expect(hooks.reactions.at(-1)).toEqual({ kind: "issue", commentId: stranger, content: "eyes" });

    const n = replies().length;
    const reactions = hooks.reactions.length;
    await say("@spec-review help", "spec-review[bot]", { type: "Bot" });
    await say("Looks good to me, @spec-review help is nice");
    expect(replies()).toHaveLength(n);
    expect(hooks.reactions).toHaveLength(reactions);
  });

  it("a question: the AI answers from the touched bundles at the head, quoting it, with sources", async () => {
    await configureModels(h.t, fake.baseUrl, false, as("admin"));
    fake.handler = (req) =>
      req.body.response_format?.json_schema?.name === "ask_answer"
        ? {
            json: {
              answer: "At most 20 a minute, per cart.",
              quotes: ["At most 20 quotes a minute per cart.", "A sentence nobody wrote."],
            },
          }
        : answerFor(req);
    await say("@spec-review how many quotes may a cart ask for?");
    const answer = replies().at(-1)!;
    expect(answer).toContain("> @spec-review how many quotes may a cart ask for?");
    expect(answer).toContain("At most 20 a minute, per cart.");
    // The quote is in the head only (the pull request adds it); a quote not in the text is dropped.
    expect(answer).toContain('- `specs/checkout-api/api.md`: "At most 20 quotes a minute per cart."');
    expect(answer).not.toContain("nobody wrote");
    const asked = fake.requests.find((r) => r.body.response_format?.json_schema?.name === "ask_answer")!;
    expect(asked.prompt).toContain("At most 20 quotes a minute per cart.");

    // A pull request that touches no bundle: one line.
    const readme = gh.commit(repo, { "README.md": "# Specs\n\nMore.\n" }, { branch: "readme" });
    repo.pulls.set(8, { files: ["README.md"], head: readme });
    await say("@spec-review ask what is this?", "lee", { pull: 8 });
    expect(replies(8)).toEqual([
      "> @spec-review what is this?\n\nPull request #8 touches no spec bundle: there is nothing to ask about.",
    ]);

    // A stranger's question reaches no model.
    const calls = fake.requests.length;
    await say("@spec-review what is the limit?", "zed");
    expect(replies().at(-1)).toMatch(/^@zed: only a member/);
    expect(fake.requests).toHaveLength(calls);
  });

  it("in a review comment: a command is answered in its thread; a question opens a thread for the AI", async () => {
    const review = (id: number, body: string, login = "lee") => {
      const p = payload("pull_request_review_comment.created", { HEAD_SHA: head }) as {
        comment: Record<string, unknown> & { user: Record<string, unknown> };
      };
      p.comment = { ...p.comment, id, body, user: { ...p.comment.user, login } };
      return h.probot.receive({ id: `rc-${id}`, name: "pull_request_review_comment", payload: p } as never);
    };
    await review(9001, "@spec-review help");
    expect(gh.reviewReplies).toEqual([
      expect.objectContaining({
        pull: 7,
        inReplyTo: 9001,
        body: expect.stringContaining("Commands for @spec-review"),
      }),
    ]);
    expect(hooks.reactions).toEqual([{ kind: "review", commentId: 9001, content: "eyes" }]);
    expect(h.threads.opened).toEqual([]);

    await review(9002, "@spec-review which field says the quote expired?");
    expect(h.threads.opened).toEqual([expect.objectContaining({ commentId: 9002, toAi: true })]);
    expect(gh.reviewReplies).toHaveLength(1);

    await review(9003, "@spec-review lint", "zed");
    expect(gh.reviewReplies.at(-1)!.body).toMatch(/^@zed: only a member/);
    expect(gh.checkRuns).toHaveLength(0);
  });

  it("Re-run all checks (check_suite rerequested): the lint runs again on a new check", async () => {
    await h.probot.receive({
      id: "cs-1",
      name: "check_suite",
      payload: {
        action: "rerequested",
        check_suite: {
          id: 55,
          head_sha: head,
          head_branch: "quote-errors",
          pull_requests: [
            { number: 7, head: { sha: head, ref: "quote-errors" }, base: { sha: base, ref: "main" } },
          ],
          app: { id: 123, slug: "spec-review" },
        },
        repository: {
          id: 812345,
          name: "specs",
          full_name: "acme/specs",
          private: true,
          owner: { login: "acme" },
        },
        sender: { login: "lee", type: "User" },
        installation: { id: 42 },
      },
    } as never);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({ name: "Build Ready", head_sha: head, status: "completed" });
  });
});
