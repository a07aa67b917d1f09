/**
 * A pull request is checked with its base branch's configuration and profiles, never its
 * own (app/pr-profiles.ts): a pull request that drops a check from the repository's
 * profile still gets that check, from the lint and from the full review, and its check's
 * summary says it changes `.spec-review/`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS } from "../helpers/app.js";
import { as } from "../helpers/actors.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels } from "../core/review/e2e-helpers.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";
import { clearGitHub, payload, startHarness, type AppHarness } from "./helpers.js";

const PROFILE = ".spec-review/profiles/api/profile.yaml";
/** The base branch's profile: the built-in API profile and a ticket every API doc must name. */
const STRICT = `key: api
extends: api
checks:
  - slug: ticket
    kind: required-pattern
    level: MUST
    category: traceability
    params: { patterns: ["JIRA-[0-9]+"] }
`;
/** What the pull request would make it: the ticket check gone. */
const RELAXED = "key: api\nextends: api\n";

interface CheckBody {
  status?: string;
  conclusion?: string;
  output: { summary: string; annotations?: Array<{ title?: string }> };
}

describe.each(DB_KINDS)("GitHub App: the base branch's profiles (%s)", (kind) => {
  const gh = new FakeGitHub();
  let fake: FakeOpenAI;
  let h: AppHarness;
  let base: string;
  let head: string;

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
    fake.reset();
    const files = folderFiles(REPO_FIXTURE);
    const repo = gh.addRepo("acme", "specs", { private: true, installationId: 42 });
    base = gh.commit(repo, { ...files, [PROFILE]: STRICT }, { message: "Import specs", author: "lee" });
    const api = "specs/checkout-api/api.md";
    head = gh.commit(
      repo,
      { [api]: files[api]! + "\n## Limits\n\nTen a minute.\n", [PROFILE]: RELAXED },
      { branch: "relax", message: "Relax the API profile", author: "dana" },
    );
    repo.pulls.set(7, { files: [api, PROFILE], head });
    h = await startHarness(gh, kind);
  });
  afterEach(async () => {
    await h.close();
  });

  const opened = (id: string) =>
    h.probot.receive({
      id,
      name: "pull_request",
      payload: payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }),
    } as never);
  const titles = (b: CheckBody) => (b.output.annotations ?? []).map((a) => a.title ?? "");

  it("the lint takes the base branch's profile, and the summary says the pull request changes .spec-review/", async () => {
    await opened("bp-1");
    expect(gh.checkRuns).toHaveLength(1);
    const check = gh.checkRuns[0]!.body as unknown as CheckBody;
    expect(check.conclusion).toBe("failure");
    expect(titles(check)).toContain("MUST ticket");
    expect(check.output.summary).toContain(
      "This pull request changes `.spec-review/` (`.spec-review/profiles/api/profile.yaml`): this check uses the configuration and profiles of the base branch (`main`)",
    );
    expect(check.output.summary).toContain("the base branch's `.spec-review/profiles`");
  });

  it("the full review takes the same profiles", async () => {
    await configureModels(h.t, fake.baseUrl, false, as("admin"));
    await opened("bp-2");
    await h.pullReviews.idle();
    const done = gh.calls
      .filter((c) => c.method === "PATCH" && c.path === `/repos/acme/specs/check-runs/${gh.checkRuns[0]!.id}`)
      .map((c) => c.body as CheckBody)
      .at(-1)!;
    expect(done).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(done.output.summary).toContain("Full review:");
    expect(titles(done)).toContain("MUST ticket");
    expect(done.output.summary).toContain("This pull request changes `.spec-review/`");
  });
});
