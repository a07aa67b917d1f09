/**
 * Repohost through the HTTP API, against a fake GitHub Enterprise Server over real HTTP
 * (test/helpers/fake-github.ts): the admin token (checked, sealed, write-only), resolve,
 * a new source read from the tree, versions that are the commits touching each folder,
 * old versions read from git, a push read incrementally with conditional requests, an
 * edit that makes a draft, and deleting a source.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { repohostConnection } from "../../../server/db/schema.js";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { ACTORS, as, testAuthenticator } from "../../helpers/actors.js";
import { FakeGitHub, gitBlobSha, type FakeRepo } from "../../helpers/fake-github.js";
import { folderFiles, PRD_CRLF, REPO_FIXTURE } from "./helpers.js";

interface Source {
  id: string;
  repo: string;
  branch: string;
  path: string;
  bundles: number;
  last_commit?: string;
  sync_error?: string;
}
interface Doc {
  id: string;
  bundle_id: string;
  slug: string;
  path: string;
  source_kind: string;
  profile_key: string;
  repohost?: { repo: string; branch: string; path: string; draft: boolean; ahead: boolean; pr_url?: string };
  current_version: { id: string; number: number; created_by: string; message: string };
}
interface Bundle {
  id: string;
  slug: string;
  source_kind: string;
  visibility?: string;
  docs: Doc[];
}

const TOKEN = "ghp_good_token_1234";

describe.each(DB_KINDS)("repohost sources (%s)", (kind) => {
  const gh = new FakeGitHub();
  let t: TestApp;
  let repo: FakeRepo;
  let first: string;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });

  beforeEach(async () => {
    gh.calls.length = 0;
    gh.repos.clear();
    repo = gh.addRepo("acme", "specs", { private: true });
    first = gh.commit(repo, folderFiles(REPO_FIXTURE), { message: "Import specs", author: "lee" });
    gh.commit(
      repo,
      {
        "specs/saved-searches/saved-searches.md": folderFiles(REPO_FIXTURE)[
          "specs/saved-searches/saved-searches.md"
        ]!.replace("# Saved searches", "# Saved searches\n\nRevised."),
      },
      { message: "Tighten saved searches", author: "dana" },
    );
    const auth = testAuthenticator();
    t = await makeTestApp({ kind, mode: "hosted", auth, repohost: { apiUrl: `${gh.url}/api/v3` } });
    auth.bind(t.services);
  });
  afterEach(async () => {
    await t.close();
  });

  async function connect(): Promise<void> {
    const res = await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("admin"));
    expect(res.status).toBe(200);
  }

  it("checks the token with the repo host, seals it and never returns it", async () => {
    expect(await json(t.req("GET", "/admin/repohost", undefined, as("admin")))).toEqual({
      configured: false,
      api_url: `${gh.url}/api/v3`,
    });
    await problem(
      await t.req("PUT", "/admin/repohost", { token: "ghp_wrong" }, as("admin")),
      400,
      "repohost_token_rejected",
    );
    await problem(await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("member")), 403, "forbidden");
    const res = await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("admin"));
    const text = await res.text();
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text)).toEqual({
      configured: true,
      token_last4: "1234",
      api_url: `${gh.url}/api/v3`,
      login: "octo-admin",
    });
    const [row] = await t.database.db
      .select()
      .from(repohostConnection)
      .where(eq(repohostConnection.id, "default"));
    expect(row!.tokenSealed).not.toContain(TOKEN);
    expect(gh.calls.filter((c) => c.path === "/user")).toHaveLength(2);
    expect(await t.req("DELETE", "/admin/repohost", undefined, as("admin"))).toHaveProperty("status", 204);
    expect(
      (await json<{ configured: boolean }>(t.req("GET", "/admin/repohost", undefined, as("admin"))))
        .configured,
    ).toBe(false);
  });

  it("refuses sources without a token, and URLs that name no repo", async () => {
    await problem(
      await t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin")),
      409,
      "repohost_not_configured",
    );
    await connect();
    await problem(
      await t.req("POST", "/repohost/resolve", { url: "https://github.com/acme" }, as("admin")),
      400,
      "bad_source_url",
    );
    await problem(
      await t.req("POST", "/repohost/resolve", { url: "ftp://x/acme/specs" }, as("admin")),
      400,
      "bad_source_url",
    );
    await problem(
      await t.req("POST", "/repohost/resolve", { url: "acme/nope" }, as("admin")),
      404,
      "repo_not_found",
    );
    await problem(
      await t.req(
        "POST",
        "/repohost/resolve",
        { url: "https://github.com/acme/specs/tree/main/nothing-here" },
        as("admin"),
      ),
      404,
      "repo_not_found",
    );
    expect(
      (await json<{ items: Source[] }>(t.req("GET", "/repohost/sources", undefined, as("admin")))).items,
    ).toEqual([]);
  });

  it("resolves a folder URL to what a source would read", async () => {
    await connect();
    const r = await json<Record<string, unknown>>(
      t.req(
        "POST",
        "/repohost/resolve",
        { url: "https://github.com/acme/specs/tree/main/specs" },
        as("member"),
      ),
    );
    expect(r).toMatchObject({
      repo: "acme/specs",
      branch: "main",
      path: "specs",
      default_branch: true,
      skipped: 0,
    });
    expect(r.bundles).toEqual([
      { slug: "specs/checkout-api", path: "api.md", profile_key: "api" },
      {
        slug: "specs/digest-decision",
        path: "0007-first-match-timestamp-for-digests.md",
        profile_key: "adr",
      },
      { slug: "specs/saved-searches", path: "saved-searches.md", profile_key: "prd" },
    ]);
  });

  it("reads a source: bundles private like the repo, versions are the commits that touched each folder", async () => {
    await connect();
    const res = await t.req(
      "POST",
      "/repohost/sources",
      { url: "https://github.com/acme/specs" },
      as("admin"),
    );
    const src = await json<Source>(res);
    expect(res.status).toBe(201);
    expect(src).toMatchObject({
      repo: "acme/specs",
      branch: "main",
      path: "",
      bundles: 3,
      last_commit: repo.branches.get("main"),
    });
    await problem(
      await t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin")),
      409,
      "source_exists",
    );

    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const saved = list.items.find((b) => b.slug === "specs/saved-searches")!;
    expect(saved).toMatchObject({ source_kind: "repohost", visibility: "private" });
    expect(saved.docs[0]!.repohost).toEqual({
      repo: "acme/specs",
      branch: "main",
      path: "specs/saved-searches",
      draft: false,
      ahead: false,
    });
    // A member does not see a private repo's bundles.
    const seen = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("member")));
    expect(seen.items.map((b) => b.slug)).not.toContain("specs/saved-searches");

    const docId = saved.docs[0]!.id;
    const versions = await json<{ items: Doc["current_version"][] }>(
      t.req("GET", `/docs/${docId}/versions`, undefined, as("admin")),
    );
    expect(versions.items.map((v) => [v.number, v.created_by, v.message])).toEqual([
      [2, "dana", "Tighten saved searches"],
      [1, "lee", "Import specs"],
    ]);
    const checkout = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!;
    expect(checkout.current_version).toMatchObject({ number: 1, created_by: "lee", message: "Import specs" });

    // The old version is read from git, by the blob of that commit.
    const before = gh.calls.length;
    const old = await t.req(
      "GET",
      `/docs/${docId}/files/content?path=saved-searches.md&version=1`,
      undefined,
      as("admin"),
    );
    expect(old.status).toBe(200);
    const oldText = await old.text();
    expect(oldText).toBe(folderFiles(REPO_FIXTURE)["specs/saved-searches/saved-searches.md"]);
    const reads = gh.since(before).map((c) => c.path);
    expect(reads).toContain(`/repos/acme/specs/git/trees/${first}?recursive=1`);
    expect(reads).toContain(`/repos/acme/specs/git/blobs/${gitBlobSha(oldText)}`);
  });

  it("syncs a push incrementally: an unchanged branch costs one conditional call; a change reads only what it touched", async () => {
    await connect();
    const src = await json<Source>(
      t.req("POST", "/repohost/sources", { url: "https://github.com/acme/specs" }, as("admin")),
    );
    let before = gh.calls.length;
    expect(
      await json<Source>(t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("member"))),
    ).toMatchObject({ bundles: 3 });
    expect(gh.since(before).map((c) => [c.path, c.status])).toEqual([
      ["/repos/acme/specs/git/ref/heads/main", 304],
    ]);

    const head = gh.commit(
      repo,
      {
        "specs/checkout-api/api.md":
          folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"] +
          "\n## Errors\n\nA 409 means the quote expired.\n",
        "specs/offline/offline.md": null,
      },
      { message: "Document quote errors", author: "sam" },
    );
    before = gh.calls.length;
    const after = await json<Source>(
      t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("member")),
    );
    expect(after.last_commit).toBe(head);
    const calls = gh.since(before).map((c) => c.path.replace(/[0-9a-f]{40}/g, "<sha>"));
    expect(calls).toEqual([
      "/repos/acme/specs/git/ref/heads/main",
      "/repos/acme/specs/compare/<sha>...<sha>",
      "/repos/acme/specs/git/blobs/<sha>",
    ]);
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const api = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!;
    expect(api.current_version).toMatchObject({
      number: 2,
      created_by: "sam",
      message: "Document quote errors",
    });

    // A new spec doc in a new folder: a new bundle (the tree is read again to find it).
    gh.commit(
      repo,
      { "specs/offline/offline.md": PRD_CRLF },
      { message: "Offline drafts PRD", author: "kai" },
    );
    expect(
      await json<Source>(t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("member"))),
    ).toMatchObject({ bundles: 4 });
    const offline = (
      await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")))
    ).items.find((b) => b.slug === "specs/offline")!;
    const text = await (
      await t.req("GET", `/docs/${offline.docs[0]!.id}/files/content?path=offline.md`, undefined, as("admin"))
    ).text();
    expect(text).toBe(PRD_CRLF);
  });

  it("a push of several commits: each commit that touched a bundle's folder is its own version, by its author", async () => {
    await connect();
    const src = await json<Source>(
      t.req("POST", "/repohost/sources", { url: "https://github.com/acme/specs" }, as("admin")),
    );
    const api = folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"]!;
    const saved = folderFiles(REPO_FIXTURE)["specs/saved-searches/saved-searches.md"]!;
    const step1 = api + "\n## Errors\n\nA 409 means the quote expired.\n";
    gh.commit(
      repo,
      { "specs/checkout-api/api.md": step1 },
      { message: "Document quote errors", author: "sam" },
    );
    gh.commit(
      repo,
      { "specs/saved-searches/saved-searches.md": saved + "\nSaved searches expire after a year.\n" },
      { message: "Expire saved searches", author: "kai" },
    );
    const step3 = step1 + "\n## Limits\n\nAt most 20 quotes a minute.\n";
    gh.commit(
      repo,
      { "specs/checkout-api/api.md": step3, "specs/checkout-api/limits.txt": "20/min\n" },
      { message: "Rate limit quotes", author: "dana" },
    );
    const before = gh.calls.length;
    await json<Source>(t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("member")));
    // One listing of each touched folder's commits, beside the ref, the compare and the blobs.
    const calls = gh.since(before).map((c) => c.path.replace(/[0-9a-f]{40}/g, "<sha>"));
    expect(calls.filter((c) => c.startsWith("/repos/acme/specs/commits?")).sort()).toEqual([
      "/repos/acme/specs/commits?sha=<sha>&per_page=100&path=specs%2Fcheckout-api",
      "/repos/acme/specs/commits?sha=<sha>&per_page=100&path=specs%2Fsaved-searches",
    ]);
    expect(calls.length).toBeLessThanOrEqual(5 + 2);

    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const docOf = (slug: string) => list.items.find((b) => b.slug === slug)!.docs[0]!.id;
    const history = async (docId: string) =>
      (
        await json<{ items: Doc["current_version"][] }>(
          t.req("GET", `/docs/${docId}/versions`, undefined, as("admin")),
        )
      ).items.map((v) => [v.number, v.created_by, v.message]);
    const checkout = docOf("specs/checkout-api");
    expect(await history(checkout)).toEqual([
      [3, "dana", "Rate limit quotes"],
      [2, "sam", "Document quote errors"],
      [1, "lee", "Import specs"],
    ]);
    expect(await history(docOf("specs/saved-searches"))).toEqual([
      [3, "kai", "Expire saved searches"],
      [2, "dana", "Tighten saved searches"],
      [1, "lee", "Import specs"],
    ]);

    // The middle version is the repo at its commit (its file list read from git), so the
    // diffs on either side of it show each commit's own change.
    interface Diff {
      from: { number: number };
      to: { number: number };
      files: Array<{ path: string; change: string; patch?: string }>;
    }
    const d12 = await json<Diff>(t.req("GET", `/docs/${checkout}/diff?from=1&to=2`, undefined, as("admin")));
    expect(d12.files.map((f) => [f.path, f.change])).toEqual([["api.md", "modified"]]);
    expect(d12.files[0]!.patch).toContain("+A 409 means the quote expired.");
    expect(d12.files[0]!.patch).not.toContain("At most 20 quotes");
    const d23 = await json<Diff>(t.req("GET", `/docs/${checkout}/diff?from=2&to=3`, undefined, as("admin")));
    expect(d23.files.map((f) => [f.path, f.change]).sort()).toEqual([
      ["api.md", "modified"],
      ["limits.txt", "added"],
    ]);
    expect(d23.files.find((f) => f.path === "api.md")!.patch).toContain("+At most 20 quotes a minute.");
    // Commits that also add a bundle make the sync read the tree again: still a version per commit.
    gh.commit(
      repo,
      { "specs/checkout-api/limits.txt": "10/min\n" },
      { message: "Fewer quotes", author: "kai" },
    );
    gh.commit(
      repo,
      { "specs/checkout-api/limits.txt": "15/min\n", "specs/offline/offline.md": PRD_CRLF },
      { message: "Offline drafts PRD, more quotes", author: "lee" },
    );
    expect(
      await json<Source>(t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("member"))),
    ).toMatchObject({ bundles: 4 });
    expect((await history(checkout)).slice(0, 3)).toEqual([
      [5, "lee", "Offline drafts PRD, more quotes"],
      [4, "kai", "Fewer quotes"],
      [3, "dana", "Rate limit quotes"],
    ]);

    const v2 = await t.req(
      "GET",
      `/docs/${checkout}/files/content?path=api.md&version=2`,
      undefined,
      as("admin"),
    );
    expect(await v2.text()).toBe(step1);
  });

  it("an edit through the API makes a draft; the branch moving marks it ahead; deleting the source archives its bundles", async () => {
    await connect();
    const src = await json<Source>(
      t.req(
        "POST",
        "/repohost/sources",
        { url: "https://github.com/acme/specs/tree/main/specs" },
        as("admin"),
      ),
    );
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const doc = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!;
    const path = doc.path;
    const text = await (
      await t.req("GET", `/docs/${doc.id}/files/content?path=${path}`, undefined, as("admin"))
    ).text();
    const put = await t.req(
      "PUT",
      `/docs/${doc.id}/files/content?path=${path}&base_version=${doc.current_version.id}`,
      text + "\n## Limits\n\nAt most 20 quotes a minute per cart.\n",
      { ...as("admin"), "content-type": "text/markdown" },
    );
    expect(put.status).toBe(200);
    let d = await json<Doc>(t.req("GET", `/docs/${doc.id}`, undefined, as("admin")));
    expect(d.repohost).toEqual({
      repo: "acme/specs",
      branch: "main",
      path: "specs/checkout-api",
      draft: true,
      ahead: false,
    });
    expect(d.current_version).toMatchObject({ number: 2, created_by: ACTORS.admin.id });

    gh.commit(
      repo,
      { "specs/checkout-api/flow.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>" },
      { message: "Redraw flow" },
    );
    await t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("member"));
    d = await json<Doc>(t.req("GET", `/docs/${doc.id}`, undefined, as("admin")));
    expect(d.repohost).toMatchObject({ draft: true, ahead: true });
    expect(d.current_version.number).toBe(2);

    // Delete offers to stop reading the source, or a pull request; nothing is permanent.
    const plan = await json<Record<string, unknown>>(
      t.req("GET", `/bundles/${doc.bundle_id}/delete-plan`, undefined, as("admin")),
    );
    expect(plan).toMatchObject({
      source_kind: "repohost",
      action: "archive",
      permanent: false,
      source_id: src.id,
      files: 2,
    });
    await problem(
      await t.req("DELETE", `/bundles/${doc.bundle_id}`, undefined, as("admin")),
      409,
      "repohost_bundle_in_repo",
    );

    // Discarding the draft: the repo's files come back, then the branch's newer ones are read.
    const discarded = await json<Doc>(t.req("POST", `/docs/${doc.id}/draft/discard`, undefined, as("admin")));
    expect(discarded.id).toBe(doc.id);
    const versions = await json<{ items: Doc["current_version"][] }>(
      t.req("GET", `/docs/${doc.id}/versions`, undefined, as("admin")),
    );
    expect(versions.items.map((v) => [v.number, v.message])).toEqual([
      [4, "Redraw flow"],
      [3, "Discard the draft"],
      [2, versions.items[2]!.message],
      [1, "Import specs"],
    ]);
    d = await json<Doc>(t.req("GET", `/docs/${doc.id}`, undefined, as("admin")));
    expect(d.repohost).toMatchObject({ draft: false, ahead: false });
    expect(
      await (await t.req("GET", `/docs/${doc.id}/files/content?path=${path}`, undefined, as("admin"))).text(),
    ).toBe(text);
    await problem(
      await t.req("POST", `/docs/${doc.id}/draft/discard`, undefined, as("admin")),
      409,
      "no_draft",
    );

    expect((await t.req("DELETE", `/repohost/sources/${src.id}`, undefined, as("admin"))).status).toBe(204);
    expect((await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")))).items).toEqual(
      [],
    );
    expect(
      (await json<{ items: Source[] }>(t.req("GET", "/repohost/sources", undefined, as("admin")))).items,
    ).toEqual([]);
    await problem(
      await t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("admin")),
      404,
      "not_found",
    );
  });
  it("publishes a draft as a branch, one commit and a pull request; rebases when the branch moved elsewhere, refuses when it touched the same file", async () => {
    await connect();
    await t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin"));
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const doc = list.items.find((b) => b.slug === "specs/saved-searches")!.docs[0]!;
    const text = await (
      await t.req("GET", `/docs/${doc.id}/files/content?path=${doc.path}`, undefined, as("admin"))
    ).text();
    const edited = text.replace("## Summary", "## Summary\n\nSaved searches are per agent, not per team.");
    await t.req(
      "PUT",
      `/docs/${doc.id}/files/content?path=${doc.path}&base_version=${doc.current_version.id}`,
      edited,
      {
        ...as("admin"),
        "content-type": "text/markdown",
      },
    );
    // A private repo's bundle: a member does not even see it.
    await problem(await t.req("POST", `/docs/${doc.id}/publish`, {}, as("member")), 404, "not_found");

    // The branch moves, touching another bundle only: the commit goes on the new head.
    const moved = gh.commit(repo, { "specs/checkout-api/flow.svg": "<svg/>" }, { message: "Redraw" });
    const before = gh.calls.length;
    const res = await t.req(
      "POST",
      `/docs/${doc.id}/publish`,
      { message: "Saved searches: per agent" },
      as("admin"),
    );
    expect(res.status).toBe(200);
    const pr = await json<{ pr_url: string; pr_number: number }>(res);
    expect(pr).toEqual({
      pr_url: `https://github.example/acme/specs/pull/${pr.pr_number}`,
      pr_number: pr.pr_number,
    });
    const calls = gh.since(before);
    expect(calls.map((c) => `${c.method} ${c.path.replace(/[0-9a-f]{40}/g, "<sha>")}`)).toEqual([
      "GET /repos/acme/specs/git/ref/heads/main",
      "GET /repos/acme/specs/compare/<sha>...<sha>",
      "POST /repos/acme/specs/git/blobs",
      "GET /repos/acme/specs/git/commits/<sha>",
      "POST /repos/acme/specs/git/trees",
      "POST /repos/acme/specs/git/commits",
      "POST /repos/acme/specs/git/refs",
      "POST /repos/acme/specs/pulls",
    ]);
    expect(Buffer.from((calls[2]!.body as { content: string }).content, "base64").toString()).toBe(edited);
    expect(calls[4]!.body).toMatchObject({
      base_tree: `tree-${moved}`,
      tree: [{ path: "specs/saved-searches/saved-searches.md", mode: "100644", type: "blob" }],
    });
    expect(calls[5]!.body).toMatchObject({ message: "Saved searches: per agent", parents: [moved] });
    expect(calls[7]!.body).toMatchObject({ title: "Saved searches: per agent", base: "main" });
    const branch = (calls[7]!.body as { head: string }).head;
    expect(
      repo.commits.get(repo.branches.get(branch)!)!.files.get("specs/saved-searches/saved-searches.md"),
    ).toBe(edited);
    const d = await json<Doc>(t.req("GET", `/docs/${doc.id}`, undefined, as("admin")));
    expect(d.repohost).toMatchObject({ draft: true, pr_url: pr.pr_url });

    // The pull request is merged: the next sync reads the draft's text back, and the draft is done.
    const merged = repo.branches.get(branch)!;
    repo.branches.set("main", merged);
    const src = (await json<{ items: Source[] }>(t.req("GET", "/repohost/sources", undefined, as("admin"))))
      .items[0]!;
    await t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("admin"));
    const landed = await json<Doc>(t.req("GET", `/docs/${doc.id}`, undefined, as("admin")));
    expect(landed.repohost).toEqual({
      repo: "acme/specs",
      branch: "main",
      path: "specs/saved-searches",
      draft: false,
      ahead: false,
    });
    expect(landed.current_version).toMatchObject({ number: 4, message: "Saved searches: per agent" });

    // The branch changes the same file: refused, nothing written.
    const other = await json<Doc>(
      t.req(
        "GET",
        `/docs/${list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.id}`,
        undefined,
        as("admin"),
      ),
    );
    const apiText = await (
      await t.req("GET", `/docs/${other.id}/files/content?path=${other.path}`, undefined, as("admin"))
    ).text();
    await t.req(
      "PUT",
      `/docs/${other.id}/files/content?path=${other.path}&base_version=${other.current_version.id}`,
      apiText + "\nDraft line.\n",
      {
        ...as("admin"),
        "content-type": "text/markdown",
      },
    );
    gh.commit(
      repo,
      { "specs/checkout-api/api.md": apiText + "\nBranch line.\n" },
      { message: "Edit on main" },
    );
    const n = gh.calls.length;
    const body = await problem(
      await t.req("POST", `/docs/${other.id}/publish`, {}, as("admin")),
      409,
      "draft_conflict",
    );
    expect(body.files).toEqual(["specs/checkout-api/api.md"]);
    expect(gh.since(n).every((c) => c.method === "GET")).toBe(true);
    await problem(
      await t.req(
        "POST",
        `/docs/${list.items.find((b) => b.slug === "specs/digest-decision")!.docs[0]!.id}/publish`,
        {},
        as("admin"),
      ),
      409,
      "no_draft",
    );
  });
  it("lists the markdown a source passed over and accepts a type for it in the service, without a commit", async () => {
    await connect();
    const src = await json<Source>(t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin")));
    const skipped = await json<{
      items: Array<{ path: string; guessed_type?: string; accepted_type?: string }>;
    }>(t.req("GET", `/repohost/sources/${src.id}/skipped`, undefined, as("member")));
    expect(skipped.items.map((i) => i.path)).toEqual(["README.md", "docs/notes.md"]);
    await problem(
      await t.req(
        "POST",
        `/repohost/sources/${src.id}/skipped`,
        { docs: [{ path: "specs/nope.md", profile: "prd" }] },
        as("member"),
      ),
      400,
      "validation_failed",
    );
    await problem(
      await t.req(
        "POST",
        `/repohost/sources/${src.id}/skipped`,
        { docs: [{ path: "docs/notes.md", profile: "nope" }] },
        as("member"),
      ),
      400,
      "unknown_profile",
    );
    const writes = gh.calls.filter((c) => c.method !== "GET").length;
    const after = await json<{ items: Array<{ path: string; accepted_type?: string }> }>(
      t.req(
        "POST",
        `/repohost/sources/${src.id}/skipped`,
        { docs: [{ path: "docs/notes.md", profile: "prd" }] },
        as("member"),
      ),
    );
    expect(after.items).toEqual([{ path: "README.md" }, { path: "docs/notes.md", accepted_type: "prd" }]);
    expect(gh.calls.filter((c) => c.method !== "GET").length).toBe(writes);
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    expect(list.items.find((b) => b.slug === "docs")!.docs[0]).toMatchObject({
      profile_key: "prd",
      path: "notes.md",
    });
  });

  it("writes the accepted types into .spec-review/config.yaml through a pull request, which the scan then reads", async () => {
    await connect();
    const src = await json<Source>(t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin")));
    await problem(
      await t.req("POST", `/repohost/sources/${src.id}/mapping`, undefined, as("member")),
      409,
      "no_accepted_types",
    );
    await json(
      t.req(
        "POST",
        `/repohost/sources/${src.id}/skipped`,
        { docs: [{ path: "docs/notes.md", profile: "prd" }] },
        as("member"),
      ),
    );
    const pr = await json<{ pr_url: string; pr_number: number }>(
      t.req("POST", `/repohost/sources/${src.id}/mapping`, undefined, as("member")),
    );
    const opened = repo.pulls.get(pr.pr_number)!;
    const config = repo.commits.get(opened.head)!.files.get(".spec-review/config.yaml")!;
    expect(config).toContain("types:\n  docs/notes.md: prd\n");
    // The branch itself is untouched until someone merges the pull request.
    expect(repo.commits.get(repo.branches.get("main")!)!.files.has(".spec-review/config.yaml")).toBe(false);

    // Merged: the repository holds the type, so the service's own acceptance can go.
    gh.commit(repo, { ".spec-review/config.yaml": config }, { message: "Merge types", author: "lee" });
    await json(t.req("POST", `/repohost/sources/${src.id}/sync`, undefined, as("admin")));
    await json(
      t.req(
        "POST",
        `/repohost/sources/${src.id}/skipped`,
        { docs: [{ path: "docs/notes.md", profile: "" }] },
        as("member"),
      ),
    );
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    expect(list.items.find((b) => b.slug === "docs")!.docs[0]).toMatchObject({ profile_key: "prd" });
    const skipped = await json<{ items: Array<{ path: string }> }>(
      t.req("GET", `/repohost/sources/${src.id}/skipped`, undefined, as("member")),
    );
    expect(skipped.items.map((i) => i.path)).toEqual(["README.md"]);
  });
});
