/**
 * Who a GitHub commenter or approver is, from webhook payloads as GitHub sends them (no
 * email on `comment.user`; `comment.author_association`): the account that linked the
 * login, else the workspace setting `github_association_role` for an OWNER, MEMBER or
 * COLLABORATOR, else a guest. And a hand-written sidecar waiver that names an approver is
 * approved when that approver, by the GitHub login linked to their account, approves a pull
 * request touching the doc (docs/waivers.md, "Approved on GitHub").
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { users } from "../../server/db/schema.js";
import { json } from "../helpers/app.js";
import { as } from "../helpers/actors.js";
import { FakeGitHub, type FakePull } from "../helpers/fake-github.js";
import { clearGitHub, payload, specsPullRequest, startHarness, type AppHarness } from "./helpers.js";

describe("GitHub commenters and approvers the App places", () => {
  const gh = new FakeGitHub();
  let h: AppHarness;
  let head: string;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });
  afterEach(async () => {
    await h.close();
  });

  /** An account of the workspace, with a GitHub login linked or not. */
  async function person(name: string, role: string, githubLogin: string | null = null): Promise<string> {
    const id = randomUUID();
    await h.t.services.db.insert(users).values({
      id,
      email: `${name.toLowerCase()}@example.com`,
      name,
      role,
      passwordHash: "scrypt$unused",
      githubLogin,
      createdAt: new Date(),
    });
    return id;
  }

  /** The recorded review comment by `lee`, as GitHub sends it: no email, an author_association. */
  function comment(id: number, association: string, body?: string): Record<string, unknown> {
    const p = payload("pull_request_review_comment.created", { HEAD_SHA: head }) as {
      comment: Record<string, unknown> & { user: Record<string, unknown> };
    };
    expect(p.comment.user.email).toBeUndefined();
    p.comment = { ...p.comment, id, author_association: association, ...(body ? { body } : {}) };
    return p;
  }

  describe("review comments", () => {
    beforeEach(async () => {
      clearGitHub(gh);
      ({ head } = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n"));
      h = await startHarness(gh);
      await h.t.services.repohost!.create("acme/specs");
    });

    const send = (id: string, p: Record<string, unknown>) =>
      h.probot.receive({ id, name: "pull_request_review_comment", payload: p } as never);

    const setRole = async (role: "off" | "member" | "viewer") => {
      const settings = await h.t.services.settings.read();
      const res = await h.t.req(
        "PUT",
        "/admin/settings",
        { ...settings, github_association_role: role },
        as("admin"),
      );
      expect(res.status, await res.clone().text()).toBe(200);
    };

    it("places the account that linked the commenter's login, before anything else", async () => {
      const lee = await person("Lee", "member", "lee");
      await send("c-1", comment(88001, "NONE"));
      expect(h.threads.opened[0]!.author).toEqual({ accountId: lee, role: "member", login: "lee" });
    });

    it("with the setting off (the default), an OWNER, MEMBER or COLLABORATOR with no linked account is a guest", async () => {
      expect((await h.t.services.settings.read()).github_association_role).toBe("off");
      await send("c-1", comment(88001, "MEMBER"));
      await send("c-2", comment(88002, "OWNER"));
      expect(h.threads.opened.map((o) => o.author)).toEqual([{ login: "lee" }, { login: "lee" }]);
    });

    it("with the setting on, places OWNER, MEMBER and COLLABORATOR with its role; anyone else stays a guest", async () => {
      await setRole("member");
      for (const [i, association] of ["OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "NONE"].entries())
        await send(`c-${i}`, comment(88001 + i, association));
      expect(h.threads.opened.map((o) => o.author)).toEqual([
        { login: "lee", role: "member" },
        { login: "lee", role: "member" },
        { login: "lee", role: "member" },
        { login: "lee" },
        { login: "lee" },
      ]);
      // A linked login still wins over the setting.
      const lee = await person("Lee", "viewer", "lee");
      await send("c-9", comment(88010, "MEMBER"));
      expect(h.threads.opened.at(-1)!.author).toEqual({ accountId: lee, role: "viewer", login: "lee" });
    });

    it("in the service's threads: a placed member is a person known by login; a viewer asks people, not the AI", async () => {
      await h.close();
      h = await startHarness(gh, "pglite", "service");
      await h.t.services.repohost!.create("acme/specs");
      await setRole("member");
      await send("s-1", comment(88001, "COLLABORATOR"));
      await setRole("viewer");
      await send("s-2", comment(88002, "MEMBER", "@spec-review which field says the quote expired?"));
      const list = await json<{ items: Array<{ slug: string; docs: Array<{ id: string }> }> }>(
        h.t.req("GET", "/bundles", undefined, as("admin")),
      );
      const docId = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.id;
      const threads = await json<{ items: Array<{ id: string; addressed_to: string }> }>(
        h.t.req("GET", `/docs/${docId}/threads`, undefined, as("admin")),
      );
      expect(threads.items).toHaveLength(2);
      const authors = [];
      for (const t of threads.items) {
        const full = await json<{ messages: Array<{ author_name: string; author_kind: string }> }>(
          h.t.req("GET", `/threads/${t.id}`, undefined, as("admin")),
        );
        authors.push({ addressed_to: t.addressed_to, ...full.messages[0]! });
      }
      expect(authors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            author_name: "@lee on GitHub",
            author_kind: "user",
            addressed_to: "humans",
          }),
        ]),
      );
      expect(authors.every((a) => a.author_kind === "user" && a.addressed_to === "humans")).toBe(true);
    });
  });

  describe("a pull request approved on GitHub", () => {
    const SIDECAR = "specs/checkout-api/api.review.yaml";
    const REASON = "Rate limits are owned by the gateway team and decided there.";
    let docId: string;

    beforeEach(() => prepare());

    /**
     * The branch gets a hand-written entry naming Rui as approver; `merged`: by merging pull
     * request 8, with these reviews, and `before` runs first (accounts linked at the merge).
     */
    async function prepare(merged?: FakePull["reviews"], before?: () => Promise<void>) {
      clearGitHub(gh);
      const pr = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n");
      head = pr.head;
      h = await startHarness(gh);
      const source = await h.t.services.repohost!.create("acme/specs");
      const list = await json<{ items: Array<{ slug: string; docs: Array<{ id: string }> }> }>(
        h.t.req("GET", "/bundles", undefined, as("admin")),
      );
      docId = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.id;
      // A finding of the doc's lint that its check and quote name alone.
      let findings: Array<{ check_slug: string; anchor?: { quote?: string } }> = [];
      for (let i = 0; i < 100 && findings.length === 0; i++) {
        const runs = await json<{ items: Array<{ id: string; status: string }> }>(
          h.t.req("GET", `/docs/${docId}/runs`, undefined, as("admin")),
        );
        const done = runs.items.find((r) => r.status === "done");
        if (done)
          findings = (
            await json<{ items: typeof findings }>(
              h.t.req("GET", `/runs/${done.id}/findings`, undefined, as("admin")),
            )
          ).items;
        else await new Promise((r) => setTimeout(r, 50));
      }
      const key = (f: (typeof findings)[number]) => `${f.check_slug}\n${f.anchor?.quote ?? ""}`;
      const target = findings.find(
        (f) => f.anchor?.quote && findings.filter((g) => key(g) === key(f)).length === 1,
      );
      expect(target, JSON.stringify(findings)).toBeDefined();
      // A hand-written entry pushed to the branch, naming its approver by GitHub login.
      await before?.();
      const merge = gh.commit(
        pr.repo,
        {
          [SIDECAR]: [
            "waivers:",
            `  - check: ${target!.check_slug}`,
            `    quote: ${JSON.stringify(target!.anchor!.quote)}`,
            `    reason: ${REASON}`,
            "    requested_by: dana",
            "    approved_by:",
            "      - '@Rui'",
            "",
          ].join("\n"),
        },
        { message: merged ? "Merge pull request #8" : "Waive a finding", author: "dana" },
      );
      if (merged)
        pr.repo.pulls.set(8, { files: [SIDECAR], head: merge, mergeCommit: merge, reviews: merged });
      await h.t.services.repohost!.sync(source.id);
      // The sidecar is read after the version, in the background: its entry becomes a request.
      for (let i = 0; i < 100 && (await waiversOf()).length === 0; i++)
        await new Promise((r) => setTimeout(r, 50));
    }

    const waiversOf = async () =>
      (
        await json<{
          items: Array<{ id: string; status: string; source: string; approvals: Array<{ by: string }> }>;
        }>(h.t.req("GET", `/docs/${docId}/waivers`, undefined, as("admin")))
      ).items;

    /** A `pull_request_review` submitted on pull request 7, as GitHub sends it. */
    const review = (id: string, login: string, state: string) =>
      h.probot.receive({
        id,
        name: "pull_request_review",
        payload: {
          action: "submitted",
          review: {
            id: 99000 + Number(id.replace(/\D/g, "")),
            state,
            body: null,
            commit_id: head,
            user: { login, id: 7001, type: "User" },
            author_association: "MEMBER",
          },
          pull_request: { number: 7, head: { sha: head } },
          repository: { full_name: "acme/specs", name: "specs", owner: { login: "acme" } },
          installation: { id: 42 },
          sender: { login },
        },
      } as never);

    it("approves the sidecar waiver that names the approver's linked login; nothing for others", async () => {
      const before = await waiversOf();
      expect(before).toEqual([
        expect.objectContaining({ status: "requested", source: "sidecar", approvals: [] }),
      ]);
      const rui = await person("Rui", "member", "rui");
      await person("Vic", "viewer", "vic");
      // Not an approval; a login nobody linked; a viewer (the policy's approvers are members).
      await review("r-1", "Rui", "commented");
      await review("r-2", "stranger", "approved");
      await review("r-3", "vic", "approved");
      expect((await waiversOf())[0]).toMatchObject({ status: "requested", approvals: [] });
      // The approver it names approves the pull request.
      await review("r-4", "Rui", "APPROVED");
      expect((await waiversOf())[0]).toMatchObject({
        id: before[0]!.id,
        status: "approved",
        approvals: [expect.objectContaining({ by: rui })],
      });
    });

    it("counts the approvals a merged pull request had when its merge brings the entry", async () => {
      // The usual order: Rui approves the pull request that adds the entry, then it is merged.
      await h.close();
      let rui = "";
      await prepare(
        [
          { state: "COMMENTED", user: { login: "Rui" } },
          { state: "APPROVED", user: { login: "Rui" } },
        ],
        async () => {
          rui = await person("Rui", "member", "rui");
        },
      );
      let list = await waiversOf();
      for (let i = 0; i < 100 && list[0]?.status !== "approved"; i++) {
        await new Promise((r) => setTimeout(r, 50));
        list = await waiversOf();
      }
      expect(list[0]).toMatchObject({
        status: "approved",
        approvals: [expect.objectContaining({ by: rui })],
      });
    });

    it("a merged pull request's approval taken back by a later review counts for nothing", async () => {
      await h.close();
      await prepare(
        [
          { state: "APPROVED", user: { login: "rui" } },
          { state: "CHANGES_REQUESTED", user: { login: "rui" } },
        ],
        async () => {
          await person("Rui", "member", "rui");
        },
      );
      await new Promise((r) => setTimeout(r, 300));
      expect((await waiversOf())[0]).toMatchObject({ status: "requested", approvals: [] });
    });

    it("does nothing when the login is linked to nobody, even if the entry names it", async () => {
      await review("r-1", "Rui", "approved");
      expect((await waiversOf())[0]).toMatchObject({ status: "requested", approvals: [] });
    });
  });
});
