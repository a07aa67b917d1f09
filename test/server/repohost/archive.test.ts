/**
 * Archived is not deleted (issue 28): deleting a repohost source archives its bundles.
 * They and their docs, versions, runs, findings, threads, waivers and handoffs stay
 * readable by whoever could read them, with `archived: true`; lists leave them out unless
 * asked (`?archived=true`); every change is 409 `bundle_archived` and changes nothing; the
 * current version's files are kept in the database, so they read after the repo host stops
 * answering, while an older version's are 410 `content_unavailable`. A bundle whose folder
 * left the branch is still gone (404), not archived.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { blobs, bundles } from "../../../server/db/schema.js";
import { silentLogger } from "../../../server/deps.js";
import { addInboxItems } from "../../../server/inbox/items.js";
import { PERMISSIONS, scopeOf, type Permission } from "../../../server/auth/permissions.js";
import { RepohostStore } from "../../../server/repohost/store.js";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { as, testAuthenticator } from "../../helpers/actors.js";
import { FakeGitHub, gitBlobSha, type FakeRepo } from "../../helpers/fake-github.js";
import { folderFiles, REPO_FIXTURE } from "./helpers.js";

interface Doc {
  id: string;
  bundle_id: string;
  slug: string;
  path: string;
  archived?: boolean;
  next_action?: unknown;
  current_version: { id: string; number: number };
}
interface Bundle {
  id: string;
  slug: string;
  archived?: boolean;
  docs: Doc[];
}
interface Run {
  id: string;
  kind: string;
  status: string;
}

const TOKEN = "ghp_good_token_1234";
const REASON = "Kept for the record while the spec moves to the new repo.";
const SAVED = folderFiles(REPO_FIXTURE)["specs/saved-searches/saved-searches.md"]!;
const REVISED = SAVED.replace("# Saved searches", "# Saved searches\n\nRevised.");

describe.each(DB_KINDS)("archived repohost bundles (%s)", (kind) => {
  const gh = new FakeGitHub();
  let t: TestApp;
  let repo: FakeRepo;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });

  beforeEach(async () => {
    gh.calls.length = 0;
    gh.repos.clear();
    // A public repo: its bundles are `internal`, so members and viewers read them too.
    repo = gh.addRepo("acme", "specs");
    gh.commit(repo, folderFiles(REPO_FIXTURE), { message: "Import specs", author: "lee" });
    gh.commit(
      repo,
      { "specs/saved-searches/saved-searches.md": REVISED },
      { message: "Tighten saved searches", author: "dana" },
    );
    const auth = testAuthenticator();
    t = await makeTestApp({
      kind,
      mode: "hosted",
      auth,
      secretKey: randomBytes(32),
      repohost: { apiUrl: `${gh.url}/api/v3` },
    });
    auth.bind(t.services);
  });
  afterEach(async () => {
    await t.close();
  });

  /** A source over the whole repo; answers its id and the saved-searches doc (two versions). */
  async function source(): Promise<{ sourceId: string; doc: Doc }> {
    expect((await t.req("PUT", "/admin/repohost", { token: TOKEN }, as("admin"))).status).toBe(200);
    const res = await t.req("POST", "/repohost/sources", { url: "acme/specs" }, as("admin"));
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    await t.runs.idle();
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const doc = list.items.find((b) => b.slug === "specs/saved-searches")!.docs[0]!;
    expect(doc.current_version.number).toBe(2);
    return { sourceId: id, doc };
  }

  /** Records of every kind on the doc: a thread, a waiver, a handoff (its runs the lint made). */
  async function records(doc: Doc) {
    const thread = await json<{ id: string }>(
      t.req(
        "POST",
        `/docs/${doc.id}/threads`,
        {
          anchor_kind: "section",
          anchor: { heading_path: [] },
          addressed_to: "humans",
          title: "Who owns saved searches?",
          body: "Which team keeps this after the move?",
        },
        as("member"),
      ),
    );
    const waiverRes = await t.req(
      "POST",
      `/docs/${doc.id}/waivers`,
      { standalone: true, reason: REASON },
      as("member"),
    );
    expect(waiverRes.status, await waiverRes.clone().text()).toBe(201);
    const waiver = await json<{ id: string }>(waiverRes);
    const handoffRes = await t.req(
      "POST",
      `/docs/${doc.id}/handoff`,
      { acknowledged: true, label: "spike" },
      as("admin"),
    );
    expect(handoffRes.status, await handoffRes.clone().text()).toBeLessThan(300);
    const handoff = await json<{ handoff_id: string }>(handoffRes);
    await t.runs.idle();
    const runs = await json<{ items: Run[] }>(t.req("GET", `/docs/${doc.id}/runs`, undefined, as("admin")));
    expect(runs.items.length).toBeGreaterThan(0);
    return {
      threadId: thread.id,
      waiverId: waiver.id,
      handoffId: handoff.handoff_id,
      runId: runs.items[0]!.id,
    };
  }

  /** What the reads of the doc answer (every record a change could touch). */
  async function readAll(doc: Doc, ids: Awaited<ReturnType<typeof records>>) {
    const paths = [
      `/bundles/${doc.bundle_id}`,
      `/docs/${doc.id}`,
      `/docs/${doc.id}/versions`,
      `/docs/${doc.id}/files`,
      `/docs/${doc.id}/runs`,
      `/runs/${ids.runId}`,
      `/runs/${ids.runId}/findings`,
      `/docs/${doc.id}/threads`,
      `/threads/${ids.threadId}`,
      `/docs/${doc.id}/waivers`,
      `/docs/${doc.id}/handoff`,
      `/docs/${doc.id}/status`,
      `/bundles/${doc.bundle_id}/access`,
      `/docs/${doc.id}/trace`,
    ];
    const out: Record<string, unknown> = {};
    for (const p of paths) {
      const res = await t.req("GET", p, undefined, as("admin"));
      expect(res.status, `${p}: ${await res.clone().text()}`).toBe(200);
      out[p] = await res.json();
    }
    const content = await t.req(
      "GET",
      `/docs/${doc.id}/files/content?path=${doc.path}`,
      undefined,
      as("admin"),
    );
    expect(content.status).toBe(200);
    out["content"] = await content.text();
    return out;
  }

  it("deleting a source archives its bundles: read as before with archived: true, left out of lists unless asked", async () => {
    const { sourceId, doc } = await source();
    const ids = await records(doc);
    // Inbox items about the doc: one by its doc (a waiver to decide), one by its bundle and thread.
    await addInboxItems(t.database.db, [
      {
        userId: "u-admin",
        kind: "waiver_to_decide",
        summary: "Decide",
        docId: doc.id,
        waiverId: ids.waiverId,
      },
      {
        userId: "u-admin",
        kind: "mention",
        summary: "Mentioned",
        bundleId: doc.bundle_id,
        threadId: ids.threadId,
      },
    ]);
    const inbox = async (q = "") =>
      (
        await json<{ items: Array<{ waiver_id?: string; thread_id?: string }> }>(
          t.req("GET", `/inbox${q}`, undefined, as("admin")),
        )
      ).items.filter((i) => i.waiver_id === ids.waiverId || i.thread_id === ids.threadId).length;
    expect(await inbox()).toBe(2);

    expect((await t.req("DELETE", `/repohost/sources/${sourceId}`, undefined, as("admin"))).status).toBe(204);
    const [row] = await t.database.db.select().from(bundles).where(eq(bundles.id, doc.bundle_id));
    expect(row).toMatchObject({ goneAt: null });
    expect(row!.archivedAt).toBeInstanceOf(Date);

    // Lists leave archived bundles out unless asked.
    for (const who of ["admin", "member"] as const) {
      const plain = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as(who)));
      expect(plain.items).toEqual([]);
      const all = await json<{ items: Bundle[] }>(t.req("GET", "/bundles?archived=true", undefined, as(who)));
      const saved = all.items.find((b) => b.id === doc.bundle_id)!;
      expect(saved, who).toMatchObject({ archived: true, docs: [{ id: doc.id, archived: true }] });
      expect(saved.docs[0]!.next_action).toBeUndefined();
      expect(all.items.every((b) => b.archived === true)).toBe(true);
    }
    expect(await inbox()).toBe(0);
    expect(await inbox("?archived=true")).toBe(2);

    // Everything of it reads as before, by those who read it before.
    const reads = await readAll(doc, ids);
    expect(reads[`/bundles/${doc.bundle_id}`]).toMatchObject({ archived: true });
    expect(reads[`/docs/${doc.id}`]).toMatchObject({ id: doc.id, archived: true });
    expect((reads[`/docs/${doc.id}/versions`] as { items: unknown[] }).items).toHaveLength(2);
    expect(
      (reads[`/docs/${doc.id}/threads`] as { items: Array<{ id: string }> }).items.map((x) => x.id),
    ).toEqual([ids.threadId]);
    expect(
      (reads[`/docs/${doc.id}/waivers`] as { items: Array<{ id: string }> }).items.map((x) => x.id),
    ).toContain(ids.waiverId);
    expect(reads["content"]).toBe(REVISED);
    for (const who of ["member", "viewer"] as const) {
      const d = await json<Doc>(t.req("GET", `/docs/${doc.id}`, undefined, as(who)));
      expect(d, who).toMatchObject({ id: doc.id, archived: true });
      expect((await t.req("GET", `/threads/${ids.threadId}`, undefined, as(who))).status).toBe(200);
      expect((await t.req("GET", `/runs/${ids.runId}/findings`, undefined, as(who))).status).toBe(200);
    }
    const plan = await json<{ sentence: string; permanent: boolean }>(
      t.req("GET", `/bundles/${doc.bundle_id}/delete-plan`, undefined, as("admin")),
    );
    expect(plan.sentence).toContain("archived");
  });

  it("every change to an archived bundle is 409 bundle_archived, for whoever may make it, and changes nothing", async () => {
    const { sourceId, doc } = await source();
    const ids = await records(doc);
    expect((await t.req("DELETE", `/repohost/sources/${sourceId}`, undefined, as("admin"))).status).toBe(204);
    const before = await readAll(doc, ids);

    // The changes named by kind, with bodies that would be accepted on a bundle that is not archived.
    const base = doc.current_version.id;
    const named: Array<[string, string, unknown]> = [
      ["PUT", `/docs/${doc.id}/files/content?path=${doc.path}&base_version=${base}`, "# Saved searches\n"],
      ["POST", `/docs/${doc.id}/files/rename`, { from: doc.path, to: "renamed.md", base_version: base }],
      ["DELETE", `/docs/${doc.id}/files?path=${doc.path}&base_version=${base}`, undefined],
      [
        "POST",
        `/docs/${doc.id}/threads`,
        {
          anchor_kind: "section",
          anchor: { heading_path: [] },
          addressed_to: "humans",
          title: "t",
          body: "b",
        },
      ],
      ["POST", `/threads/${ids.threadId}/messages`, { body: "One more thing." }],
      ["PUT", `/threads/${ids.threadId}/status`, { status: "resolved" }],
      ["PUT", `/threads/${ids.threadId}/blocking`, { blocking: true }],
      ["POST", `/docs/${doc.id}/waivers`, { standalone: true, reason: REASON + " Again." }],
      ["POST", `/waivers/${ids.waiverId}/approve`, {}],
      ["POST", `/waivers/${ids.waiverId}/reject`, { reason: "No longer needed here." }],
      ["POST", `/bundles/${doc.bundle_id}/share`, {}],
      ["DELETE", `/bundles/${doc.bundle_id}/share`, undefined],
      ["PUT", `/bundles/${doc.bundle_id}/visibility`, { visibility: "private" }],
      ["POST", `/docs/${doc.id}/approve`, {}],
      ["POST", `/docs/${doc.id}/review-request`, { reviewers: ["u-member"] }],
      ["POST", `/docs/${doc.id}/runs`, undefined],
      ["POST", `/docs/${doc.id}/handoff`, { acknowledged: true }],
      ["POST", `/handoffs/${ids.handoffId}/report`, { result: "built", body: "Done." }],
      ["POST", `/docs/${doc.id}/draft/discard`, undefined],
      ["POST", `/docs/${doc.id}/publish`, {}],
      ["DELETE", `/bundles/${doc.bundle_id}`, undefined],
    ];
    for (const [method, path, body] of named)
      await problem(await t.req(method, path, body, as("admin")), 409, "bundle_archived").catch(
        (err: Error) => {
          throw new Error(`${method} ${path}: ${err.message}`);
        },
      );

    // Every operation of the permission table that changes a record of a bundle, as each role.
    const idOf: Record<string, string> = {
      docId: doc.id,
      bundleId: doc.bundle_id,
      runId: ids.runId,
      threadId: ids.threadId,
      waiverId: ids.waiverId,
      handoffId: ids.handoffId,
      findingId: randomUUID(),
    };
    const changes = Object.entries(PERMISSIONS as Record<string, Permission>).filter(
      ([op, p]) => !["public", "self", "read"].includes(p) && scopeOf(op) !== undefined,
    );
    expect(changes.length).toBeGreaterThan(30);
    const grants: Record<string, Permission[]> = {
      admin: ["comment", "write", "review", "approve", "own", "maintain", "admin"],
      member: ["comment", "write", "review", "approve"],
      viewer: [],
    };
    for (const [op, permission] of changes) {
      const [method, template] = op.split(" ") as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => idOf[name] ?? randomUUID());
      for (const who of ["admin", "member", "viewer"] as const) {
        const res = await t.req(method, path, method === "GET" ? undefined : {}, as(who));
        const [status, code] = grants[who]!.includes(permission)
          ? [409, "bundle_archived"]
          : [403, "forbidden"];
        await problem(res, status, code).catch((err: Error) => {
          throw new Error(`${op} as ${who}: ${err.message}`);
        });
      }
    }

    // Nothing changed.
    expect(await readAll(doc, ids)).toEqual(before);
  });

  it("keeps the current version's files: they read after the repo host stops answering; an older version's are content_unavailable", async () => {
    const { sourceId, doc } = await source();
    expect((await t.req("DELETE", `/repohost/sources/${sourceId}`, undefined, as("admin"))).status).toBe(204);
    // Kept by git blob id, the id the version's file list names.
    const [kept] = await t.database.db
      .select()
      .from(blobs)
      .where(eq(blobs.sha256, gitBlobSha(REVISED)));
    expect(Buffer.from(kept!.content).toString("utf8")).toBe(REVISED);

    gh.repos.clear(); // the repo host answers 404 to everything from now on
    const content = await t.req(
      "GET",
      `/docs/${doc.id}/files/content?path=${doc.path}`,
      undefined,
      as("member"),
    );
    expect(content.status).toBe(200);
    expect(await content.text()).toBe(REVISED);
    expect((await t.req("GET", `/docs/${doc.id}/files`, undefined, as("member"))).status).toBe(200);
    expect((await t.req("GET", `/docs/${doc.id}/export`, undefined, as("member"))).status).toBe(200);

    // The older version was never read: its file list and bytes are the repo host's.
    await problem(
      await t.req("GET", `/docs/${doc.id}/files/content?path=${doc.path}&version=1`, undefined, as("member")),
      410,
      "content_unavailable",
    );
    await problem(
      await t.req("GET", `/docs/${doc.id}/files?version=1`, undefined, as("member")),
      410,
      "content_unavailable",
    );
    await problem(
      await t.req("GET", `/docs/${doc.id}/diff?from=1`, undefined, as("member")),
      410,
      "content_unavailable",
    );

    // A fresh process (nothing cached) whose repo host cannot be reached at all reads the kept bytes.
    const store = new RepohostStore({
      db: t.database.db,
      clock: { now: () => new Date() },
      logger: silentLogger,
      limits: () => Promise.resolve({ maxFileMb: 10, maxBundleMb: 50 }),
      clientFor: () => Promise.reject(new Error("the App was uninstalled")),
    });
    const { bytes } = await store.fileBytes(doc.current_version.id, doc.path);
    expect(Buffer.from(bytes).toString("utf8")).toBe(REVISED);
    const versions = await store.versions(doc.bundle_id, { limit: 10 });
    const older = versions.find((v) => v.number === 1)!;
    await expect(store.fileBytes(older.id, doc.path)).rejects.toMatchObject({ code: "content_unavailable" });
  });

  it("a bundle whose folder left the branch is gone (404), not archived, also after its source is deleted", async () => {
    const { sourceId, doc } = await source();
    const list = await json<{ items: Bundle[] }>(t.req("GET", "/bundles", undefined, as("admin")));
    const checkout = list.items.find((b) => b.slug === "specs/checkout-api")!;
    const removed = Object.fromEntries(
      Object.keys(folderFiles(REPO_FIXTURE))
        .filter((p) => p.startsWith("specs/checkout-api/"))
        .map((p) => [p, null]),
    );
    gh.commit(repo, removed, { message: "Move checkout elsewhere" });
    expect((await t.req("POST", `/repohost/sources/${sourceId}/sync`, undefined, as("admin"))).status).toBe(
      200,
    );
    const gone = async () => {
      await problem(await t.req("GET", `/bundles/${checkout.id}`, undefined, as("admin")), 404, "not_found");
      await problem(
        await t.req("GET", `/docs/${checkout.docs[0]!.id}`, undefined, as("admin")),
        404,
        "not_found",
      );
      const all = await json<{ items: Bundle[] }>(
        t.req("GET", "/bundles?archived=true", undefined, as("admin")),
      );
      expect(all.items.map((b) => b.id)).not.toContain(checkout.id);
      return all.items;
    };
    expect((await gone()).map((b) => b.id)).toContain(doc.bundle_id);
    const [row] = await t.database.db.select().from(bundles).where(eq(bundles.id, checkout.id));
    expect(row!.goneAt).toBeInstanceOf(Date);
    expect(row!.archivedAt).toBeNull();

    expect((await t.req("DELETE", `/repohost/sources/${sourceId}`, undefined, as("admin"))).status).toBe(204);
    // The others are archived and readable; the gone one stays gone.
    const left = await gone();
    expect(left.find((b) => b.id === doc.bundle_id)).toMatchObject({ archived: true });
    expect((await t.req("GET", `/docs/${doc.id}`, undefined, as("admin"))).status).toBe(200);
  });
});
