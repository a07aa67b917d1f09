/**
 * Reading a repository (issue 30) against the fake GitHub Enterprise Server over real HTTP,
 * whose archives are real (`git archive` of its commits): the first read through the
 * archive and its redirect, a large archive streamed, a truncated tree, a compare GitHub
 * cut short, primary and secondary rate limits with and without `retry-after` (nothing
 * sent before the time told, the wait shared by another instance and kept across a
 * restart, the sync resumed by itself), and token-read sources polled.
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type Clock } from "../../../server/deps.js";
import { SecretBox } from "../../../server/models/secrets.js";
import { createRepohost } from "../../../server/repohost/index.js";
import { untar } from "../../../server/repohost/archive.js";
import type { RepohostStore } from "../../../server/repohost/store.js";
import { DB_KINDS, json, makeTestApp, type TestApp } from "../../helpers/app.js";
import { as, testAuthenticator } from "../../helpers/actors.js";
import { FakeGitHub, gitBlobSha, type FakeRepo } from "../../helpers/fake-github.js";
import { folderFiles, REPO_FIXTURE } from "./helpers.js";

interface Source {
  id: string;
  bundles: number;
  last_commit?: string;
  sync_state: string;
  resume_at?: string;
  sync_error?: string;
}

const TOKEN = "ghp_good_token_1234";

/** A clock the test moves. */
class TestClock implements Clock {
  t = Date.parse("2026-11-01T10:00:00Z");
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

function prd(i: number, extra = ""): string {
  return `---\ntype: prd\nsize: small\n---\n# Feature ${i}\n\n## Problem\n\nSearch ${i} is slow.\n\n## Goals\n\n- F${i}-1: Results MUST appear within 300 ms.\n${extra}`;
}

const norm = (path: string) => path.replace(/[0-9a-f]{40}/g, "<sha>").replace(/\?.*$/, "");

describe.each(DB_KINDS)("reading a repository (%s)", (kind) => {
  const gh = new FakeGitHub();
  let t: TestApp;
  let repo: FakeRepo;
  let clock: TestClock;
  let key: Uint8Array;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });

  beforeEach(async () => {
    gh.calls.length = 0;
    gh.repos.clear();
    gh.limits.length = 0;
    gh.truncateTrees = false;
    gh.shortPagesBy = 0;
    repo = gh.addRepo("acme", "specs", { private: true });
    gh.commit(repo, folderFiles(REPO_FIXTURE), { message: "Import specs", author: "lee" });
    clock = new TestClock();
    key = randomBytes(32);
    const auth = testAuthenticator();
    t = await makeTestApp({
      kind,
      mode: "hosted",
      auth,
      clock,
      secretKey: key,
      repohost: { apiUrl: `${gh.url}/api/v3` },
    });
    auth.bind(t.services);
    expect((await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("admin"))).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
  });

  const sources = () => t.services.repohost!;
  const store = () => sources().store;

  async function create(url = "acme/specs"): Promise<Source> {
    const res = await t.req("POST", "/repohost/sources", { url }, as("admin"));
    expect(res.status).toBe(201);
    return (await res.json()) as Source;
  }
  async function getSource(id: string): Promise<Source> {
    const list = await json<{ items: Source[] }>(t.req("GET", "/repohost/sources", undefined, as("admin")));
    return list.items.find((s) => s.id === id)!;
  }
  async function sync(id: string): Promise<{ status: number; body: Source }> {
    const res = await t.req("POST", `/repohost/sources/${id}/sync`, undefined, as("member"));
    return { status: res.status, body: (await res.json()) as Source };
  }

  /** Another instance on the same database (or this one after a restart): its own clients, no memory of waits. */
  function otherInstance(): { store: RepohostStore; poller: { tick(): Promise<void> } } {
    const other = createRepohost({
      db: t.database.db,
      box: new SecretBox(key),
      clock,
      logger: silentLogger,
      limits: () => store().currentLimits(),
      primary: t.services.store,
      config: { apiUrl: `${gh.url}/api/v3` },
    });
    return { store: other.sources.store, poller: other.poller };
  }

  it("reads a new source from the branch's archive: the redirect followed, the token kept off codeload, blob ids from the bytes", async () => {
    const before = gh.calls.length;
    const src = await create();
    expect(src).toMatchObject({ bundles: 3, sync_state: "idle" });
    const calls = gh.since(before).map((c) => [norm(c.path), c.status]);
    expect(calls).toEqual([
      ["/repos/acme/specs", 200],
      ["/repos/acme/specs/git/ref/heads/main", 200],
      ["/repos/acme/specs/tarball/<sha>", 302],
      ["/_codeload/acme/specs/legacy.tar.gz/<sha>", 200],
      // Three new bundles: each folder's history (past 20 new bundles, none: one version each).
      ["/repos/acme/specs/commits", 200],
      ["/repos/acme/specs/commits", 200],
      ["/repos/acme/specs/commits", 200],
    ]);
    // The redirect's address carries its own token: the API token never goes there.
    expect(gh.codeloadAuth).toEqual([""]);
    // File entries are git blob ids computed from the archive's bytes: equal to the repo's.
    const list = await json<{ items: Array<{ slug: string; docs: Array<{ id: string }> }> }>(
      t.req("GET", "/bundles", undefined, as("admin")),
    );
    const saved = list.items.find((b) => b.slug === "specs/saved-searches")!;
    const files = await json<{ items: Array<{ path: string; sha256: string }> }>(
      t.req("GET", `/docs/${saved.docs[0]!.id}/files`, undefined, as("admin")),
    );
    const text = folderFiles(REPO_FIXTURE)["specs/saved-searches/saved-searches.md"]!;
    expect(files.items.find((f) => f.path === "saved-searches.md")!.sha256).toBe(gitBlobSha(text));
    // The markdown came with the archive: reading it costs no call.
    const at = gh.calls.length;
    const res = await t.req(
      "GET",
      `/docs/${saved.docs[0]!.id}/files/content?path=saved-searches.md`,
      undefined,
      as("admin"),
    );
    expect(await res.text()).toBe(text);
    expect(gh.calls.length).toBe(at);
  });

  it("a first read of many bundles: one version each, the head, and no call per bundle", async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 30; i++) many[`area/f${i}/prd.md`] = prd(i);
    gh.commit(repo, many, { message: "Many specs" });
    const before = gh.calls.length;
    const src = await create("https://github.com/acme/specs/tree/main/area");
    expect(src.bundles).toBe(30);
    expect(gh.since(before).map((c) => norm(c.path))).toEqual([
      "/repos/acme/specs",
      "/repos/acme/specs/git/ref/heads/main",
      "/repos/acme/specs/tarball/<sha>",
      "/_codeload/acme/specs/legacy.tar.gz/<sha>",
    ]);
    const list = await json<{
      items: Array<{
        slug: string;
        docs: Array<{ current_version: { number: number; created_by: string } }>;
      }>;
    }>(t.req("GET", "/bundles?limit=100", undefined, as("admin")));
    const f7 = list.items.find((b) => b.slug === "area/f7")!;
    expect(f7.docs[0]!.current_version).toMatchObject({ number: 1, created_by: "repohost" });
  });

  it("streams a large archive: files hashed as they pass, only the markdown kept", async () => {
    // Three 8 MB assets (incompressible), beside the specs.
    const big: Record<string, string> = {};
    for (let i = 0; i < 3; i++)
      big[`specs/saved-searches/asset-${i}.bin`] = randomBytes(6 * 1024 * 1024).toString("base64");
    gh.commit(repo, big, { message: "Large assets" });
    const src = await create();
    expect(src.bundles).toBe(3);
    const list = await json<{ items: Array<{ id: string; slug: string }> }>(
      t.req("GET", "/bundles", undefined, as("admin")),
    );
    const saved = list.items.find((b) => b.slug === "specs/saved-searches")!;
    // The assets' bytes passed through the hash and were not kept: only their ids are.
    for (const text of Object.values(big)) expect(store().cached(gitBlobSha(text))).toBeUndefined();
    const manifest = await store().manifest((await store().bundle(saved.id)).head.id);
    for (let i = 0; i < 3; i++) {
      const entry = manifest.find((f) => f.path === `asset-${i}.bin`)!;
      expect(entry.sha256).toBe(gitBlobSha(big[`specs/saved-searches/asset-${i}.bin`]!));
      expect(entry.size).toBe(Buffer.byteLength(big[`specs/saved-searches/asset-${i}.bin`]!));
    }
  });

  it("untars a stream chunk by chunk: a gzip cut short is an error, not a partial list", async () => {
    const { createGzip } = await import("node:zlib");
    const { pack } = await import("tar-stream");
    const p = pack();
    p.entry({ name: "acme-specs-0000000/a.md" }, "# A\n");
    p.entry({ name: "acme-specs-0000000/b/c.txt" }, "c\n");
    p.finalize();
    const chunks: Buffer[] = [];
    for await (const c of p.pipe(createGzip())) chunks.push(c as Buffer);
    const whole = Buffer.concat(chunks);
    const stream = (bytes: Buffer) =>
      new ReadableStream<Uint8Array>({
        start(ctl) {
          for (let i = 0; i < bytes.length; i += 7) ctl.enqueue(new Uint8Array(bytes.subarray(i, i + 7)));
          ctl.close();
        },
      });
    const read = await untar(stream(whole), { keep: (path) => path.endsWith(".md") });
    expect([...read.files]).toEqual([
      ["a.md", { sha: gitBlobSha("# A\n"), size: 4 }],
      ["b/c.txt", { sha: gitBlobSha("c\n"), size: 2 }],
    ]);
    expect([...read.kept.keys()]).toEqual([gitBlobSha("# A\n")]);
    await expect(
      untar(stream(whole.subarray(0, whole.length - 30)), { keep: () => false }),
    ).rejects.toThrow();
  });

  it("never takes a truncated tree as whole: an older version's files come from its archive", async () => {
    const src = await create();
    const old = folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"]!;
    gh.commit(repo, { "specs/checkout-api/api.md": old + "\nOne.\n" }, { message: "One", author: "sam" });
    gh.commit(repo, { "specs/checkout-api/api.md": old + "\nTwo.\n" }, { message: "Two", author: "kai" });
    await sync(src.id);
    gh.truncateTrees = true;
    const list = await json<{ items: Array<{ slug: string; docs: Array<{ id: string }> }> }>(
      t.req("GET", "/bundles", undefined, as("admin")),
    );
    const doc = list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.id;
    const before = gh.calls.length;
    // Version 2 ("One") has no file list yet: it is read from git now.
    const v2 = await t.req("GET", `/docs/${doc}/files/content?path=api.md&version=2`, undefined, as("admin"));
    expect(await v2.text()).toBe(old + "\nOne.\n");
    const calls = gh.since(before).map((c) => norm(c.path));
    expect(calls).toContain("/repos/acme/specs/git/trees/<sha>");
    expect(calls).toContain("/repos/acme/specs/tarball/<sha>");
  });

  it("a push GitHub's compare cuts short (300 files) reads the archive instead", async () => {
    const src = await create();
    const many: Record<string, string> = {};
    for (let i = 0; i < 320; i++) many[`specs/checkout-api/data/row-${i}.txt`] = `row ${i}\n`;
    gh.commit(repo, many, { message: "Lots of data", author: "sam" });
    const before = gh.calls.length;
    const { status, body } = await sync(src.id);
    expect(status).toBe(200);
    expect(body.last_commit).toBe(repo.branches.get("main"));
    const calls = gh.since(before).map((c) => norm(c.path));
    expect(calls).toContain("/repos/acme/specs/tarball/<sha>");
    expect(calls.filter((c) => c.includes("/git/blobs/"))).toEqual([]);
    const list = await json<{ items: Array<{ slug: string; id: string }> }>(
      t.req("GET", "/bundles", undefined, as("admin")),
    );
    const api = list.items.find((b) => b.slug === "specs/checkout-api")!;
    expect((await store().bundleStats(api.id)).files).toBeGreaterThan(320);
  });

  it("a primary rate limit: 202 waiting until x-ratelimit-reset, nothing sent before it, then resumed by itself", async () => {
    const src = await create();
    gh.commit(
      repo,
      { "specs/checkout-api/api.md": "---\ntype: api\n---\n# API\n\nChanged.\n" },
      { message: "Change" },
    );
    const reset = Math.floor(clock.t / 1000) + 600;
    gh.limits.push({ kind: "primary", match: /\/compare\//, reset });
    const first = await sync(src.id);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      sync_state: "waiting_rate_limit",
      resume_at: new Date((reset + 1) * 1000).toISOString(),
    });
    expect(first.body.sync_error).toBeUndefined();
    // Asking again, polling, another instance, a restart: nothing is sent before the reset.
    const at = gh.calls.length;
    expect((await sync(src.id)).status).toBe(202);
    await sources().poller!.tick();
    clock.advance(500_000);
    const other = otherInstance();
    await other.poller.tick();
    expect((await other.store.sync(src.id)).waitingUntil?.toISOString()).toBe(first.body.resume_at);
    expect(gh.calls.length).toBe(at);
    // The wait is over: the next look resumes it (one instance), and the push is read.
    clock.advance(102_000);
    await Promise.all([sources().poller!.tick(), other.poller.tick()]);
    const after = await getSource(src.id);
    expect(after).toMatchObject({ sync_state: "idle", last_commit: repo.branches.get("main") });
    expect(after.resume_at).toBeUndefined();
    expect(gh.since(at).filter((c) => c.path.includes("/git/ref/heads/main"))).toHaveLength(1);
  });

  it("a secondary rate limit with retry-after waits that long; without it at least a minute, doubling", async () => {
    const src = await create();
    gh.commit(
      repo,
      { "specs/checkout-api/api.md": "---\ntype: api\n---\n# API\n\nChanged.\n" },
      { message: "Change" },
    );
    gh.limits.push({ kind: "secondary", match: /\/git\/ref\//, retryAfter: 30 });
    let r = await sync(src.id);
    expect(r.status).toBe(202);
    expect(Date.parse(r.body.resume_at!) - clock.t).toBe(30_000);
    clock.advance(30_000);
    // No retry-after: a minute.
    gh.limits.push({ kind: "secondary", match: /\/git\/ref\// });
    r = await sync(src.id);
    expect(r.status).toBe(202);
    expect(Date.parse(r.body.resume_at!) - clock.t).toBe(60_000);
    clock.advance(60_000);
    // Again without: two minutes (429 this time).
    gh.limits.push({ kind: "429", match: /\/git\/ref\// });
    r = await sync(src.id);
    expect(Date.parse(r.body.resume_at!) - clock.t).toBe(120_000);
    const at = gh.calls.length;
    clock.advance(119_000);
    expect((await sync(src.id)).status).toBe(202);
    expect(gh.calls.length).toBe(at);
    clock.advance(1_000);
    r = await sync(src.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ sync_state: "idle", last_commit: repo.branches.get("main") });
    // A sync that went through resets the doubling.
    gh.commit(
      repo,
      { "specs/checkout-api/api.md": "---\ntype: api\n---\n# API\n\nAgain.\n" },
      { message: "Again" },
    );
    gh.limits.push({ kind: "secondary", match: /\/git\/ref\// });
    r = await sync(src.id);
    expect(Date.parse(r.body.resume_at!) - clock.t).toBe(60_000);
  });

  it("a rate limit before a source exists is 503 repohost_rate_limited with Retry-After, nothing kept", async () => {
    gh.limits.push({ kind: "secondary", match: /^\/repos\/acme\/specs$/, retryAfter: 45 });
    const res = await t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin"));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("45");
    expect(await res.json()).toMatchObject({ code: "repohost_rate_limited", retry_after: 45 });
    expect(
      (await json<{ items: unknown[] }>(t.req("GET", "/repohost/sources", undefined, as("admin")))).items,
    ).toEqual([]);
  });

  it("polls token-read sources: one conditional call when nothing changed, one instance at a time", async () => {
    const src = await create();
    const other = otherInstance();
    // Not due yet: nothing.
    let at = gh.calls.length;
    await sources().poller!.tick();
    expect(gh.calls.length).toBe(at);
    clock.advance(5 * 60_000 + 1);
    at = gh.calls.length;
    await Promise.all([sources().poller!.tick(), other.poller.tick()]);
    expect(gh.since(at).map((c) => [norm(c.path), c.status])).toEqual([
      ["/repos/acme/specs/git/ref/heads/main", 304],
    ]);
    // A push: the next poll reads it.
    const head = gh.commit(
      repo,
      { "specs/checkout-api/api.md": "---\ntype: api\n---\n# API\n\nPolled.\n" },
      { message: "Polled" },
    );
    clock.advance(5 * 60_000 + 1);
    await sources().poller!.tick();
    expect(await getSource(src.id)).toMatchObject({
      last_commit: head,
      sync_state: "idle",
    });
  });
});
