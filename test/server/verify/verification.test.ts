/**
 * Verification runs end to end (docs/verification.md): a PRD with REQ IDs (CRLF, emoji)
 * verified against real git repositories and real folders made in temp dirs: outcomes
 * by trace ID, the run's verdict, branch and base commit, the content digest, claims
 * (rule 8), server-sent events with resume, the stale flag, and every bad input.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { verificationRuns } from "../../../server/db/schema.js";
import { SHOP_CODE, commitAll, git, makeRepo, tempFolder, writeFiles } from "./git-helpers.js";

const FIXTURE = resolve(import.meta.dirname, "../../../fixtures/verify");

interface Target {
  kind: string;
  path: string;
  quote: string;
  line?: number;
  provenance?: string;
  changed?: boolean;
  holds?: boolean;
  fault?: string;
}
interface Outcome {
  trace_id: string;
  outcome: string;
  level: string;
  provenance: string;
  gated: boolean;
  targets: Target[];
}
export interface Run {
  id: string;
  status: string;
  verdict?: string;
  outcomes: Outcome[];
  sha?: string;
  path?: string;
  branch?: string;
  base_sha: string;
  digest?: string;
  unverified_ids?: string[];
  limits_hit?: string[];
  bundle_changed: boolean;
  opened_blocking_thread: boolean;
  check?: string;
  note?: string;
  error?: string;
  scan?: {
    files: number;
    binary: number;
    symlinks: number;
    special: number;
    too_large: { path: string; size: number }[];
  };
}

/** Server-sent events of a finished stream: each block's `id`, `event` and JSON `data`. */
function parseSse(text: string): Array<{ id: number; name: string; data: Record<string, unknown> }> {
  return text
    .split("\n\n")
    .filter((b) => b.includes("event:"))
    .map((block) => {
      const field = (k: string) => block.match(new RegExp(`^${k}: ?(.*)$`, "m"))?.[1] ?? "";
      return {
        id: Number(field("id")),
        name: field("event"),
        data: JSON.parse(field("data")) as Record<string, unknown>,
      };
    });
}

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const repo = (files: Record<string, string | Buffer>) => {
  const d = makeRepo(files);
  made.push(d);
  return d;
};
const folder = (files: Record<string, string | Buffer>) => {
  const d = tempFolder();
  made.push(d);
  writeFiles(d, files);
  return d;
};

for (const kind of DB_KINDS) {
  describe(`verification (${kind})`, () => {
    let t: TestApp;
    let docId: string;

    beforeEach(async () => {
      t = await makeTestApp({ kind, fixture: FIXTURE });
      await t.runs.idle();
      const list = await json<{ items: { slug: string; docs: { id: string }[] }[] }>(
        t.req("GET", "/bundles"),
      );
      docId = list.items.find((b) => b.slug === "giftcards")!.docs[0]!.id;
    }, 120_000);
    afterEach(() => t?.close());

    async function verify(body: Record<string, unknown>): Promise<Run> {
      const res = await t.req("POST", `/docs/${docId}/verifications`, body);
      const text = await res.text();
      expect(res.status, text).toBe(202);
      const queued = JSON.parse(text) as Run;
      expect(queued.status).toBe("queued");
      await t.services.verify.idle();
      return json<Run>(t.req("GET", `/verifications/${queued.id}`));
    }
    const byId = (run: Run) => new Map(run.outcomes.map((o) => [o.trace_id, o]));

    it("verifies a git repository at its commit: outcomes by trace ID, branch and base, the work tree untouched", async () => {
      const dir = repo(SHOP_CODE);
      const first = git(dir, "rev-parse", "HEAD");
      // Work on a branch: the changed file ranks first; an uncommitted edit is not read.
      git(dir, "checkout", "-q", "-b", "feature/pin-lock");
      writeFiles(dir, {
        "src/lock2.ts": "// REQ-003: lock the card for 24 hours\nexport const LOCK_HOURS = 24;\n",
      });
      const head = commitAll(dir, "lock in ts");
      writeFiles(dir, { "src/dirty.ts": "// REQ-002 uncommitted\n" });
      const status = git(dir, "status", "--porcelain");

      const run = await verify({ target: dir });
      expect(run.status).toBe("done");
      expect(run.sha).toBe(head);
      expect(run.branch).toBe("feature/pin-lock");
      expect(run.base_sha).toBe(first);
      expect(run.check).toBe("presence");
      expect(run.note).toMatch(/presence only/);
      const o = byId(run);
      expect(o.get("REQ-001")).toMatchObject({
        outcome: "implemented",
        level: "MUST",
        provenance: "scan",
        gated: true,
      });
      expect(o.get("REQ-001")!.targets).toEqual([
        {
          kind: "code",
          path: "src/redeem.ts",
          quote: "// REQ-001: card number and PIN on the payment step",
          line: 3,
          provenance: "scan",
        },
      ]);
      // A test name cites REQ-002 but the service runs no tests: still missing.
      expect(o.get("REQ-002")!.outcome).toBe("missing");
      expect(o.get("REQ-002")!.targets.map((x) => [x.kind, x.path, x.line])).toEqual([
        ["test", "test/balance.test.ts", 3],
      ]);
      // The file changed on the branch ranks first.
      expect(o.get("REQ-003")!.targets.map((x) => [x.path, x.changed ?? false])).toEqual([
        ["src/lock2.ts", true],
        ["src/lock.py", false],
      ]);
      // A string in code and prose in a README do not count.
      expect(o.get("REQ-004")).toMatchObject({ outcome: "missing", level: "SHOULD", targets: [] });
      expect(o.get("NFR-001")).toMatchObject({ gated: false });
      expect(run.unverified_ids).toEqual(["NFR-001"]);
      expect(run.verdict).toBe("not_verified");
      expect(run.bundle_changed).toBe(false);
      expect(run.opened_blocking_thread).toBe(false);
      // Nothing in the user's repository moved.
      expect(git(dir, "rev-parse", "HEAD")).toBe(head);
      expect(git(dir, "status", "--porcelain")).toBe(status);

      // An older commit by sha: the branch's file is not there.
      const older = await verify({ target: dir, sha: first });
      expect(older.sha).toBe(first);
      expect(
        byId(older)
          .get("REQ-003")!
          .targets.map((x) => x.path),
      ).toEqual(["src/lock.py"]);
      expect(older.branch).toBe("main");
    });

    it("verifies a plain folder with a content digest, and says `verified` when every gated MUST is implemented", async () => {
      const files = {
        ...SHOP_CODE,
        "src/balance.go":
          "package shop\n\n// REQ-002 show the balance before confirming\nfunc Balance() int { return 0 }\n",
      };
      const dir = folder(files);
      const run = await verify({ path: dir });
      expect(run.status).toBe("done");
      expect(run.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(run.base_sha).toBe("");
      expect(run.sha).toBeUndefined();
      expect(run.verdict).toBe("verified");
      const again = await verify({ target: dir });
      expect(again.digest).toBe(run.digest);
      writeFiles(dir, { "src/extra.ts": "export {};\n" });
      expect((await verify({ path: dir })).digest).not.toBe(run.digest);
      const list = await json<{ items: Run[] }>(t.req("GET", `/docs/${docId}/verifications`));
      expect(list.items.map((r) => r.digest)).toEqual([expect.any(String), run.digest, run.digest]);
      expect(list.items[0]!.digest).not.toBe(run.digest);
    });

    it("skips binary files, a 2 GB file, symbolic link loops and FIFOs, and reports the limits it hit", async () => {
      const dir = folder({
        "src/redeem.ts": SHOP_CODE["src/redeem.ts"]!,
        "assets/logo.png": Buffer.concat([
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]),
          Buffer.from("// REQ-002"),
        ]),
      });
      // A sparse 2 GB file: its size alone is known; it is never read.
      const big = openSync(join(dir, "dump.sql"), "w");
      closeSync(big);
      execFileSync("truncate", ["-s", "2G", join(dir, "dump.sql")]);
      mkdirSync(join(dir, "loop"));
      symlinkSync("..", join(dir, "loop", "up"));
      symlinkSync(join(dir, "loop"), join(dir, "loop", "self"));
      execFileSync("mkfifo", [join(dir, "pipe")]);
      const run = await verify({ path: dir });
      expect(run.status).toBe("done");
      expect(run.scan!.binary).toBe(1);
      expect(run.scan!.symlinks).toBe(2);
      expect(run.scan!.special).toBe(1);
      expect(run.scan!.too_large).toEqual([{ path: "dump.sql", size: 2 * 1024 ** 3 }]);
      expect(byId(run).get("REQ-002")!.outcome).toBe("missing");
      expect(byId(run).get("REQ-001")!.outcome).toBe("implemented");

      t.services.verify.limits = { maxFiles: 1 };
      const limited = await verify({ path: folder(SHOP_CODE) });
      expect(limited.limits_hit).toEqual(["files"]);
      t.services.verify.limits = { maxBytes: 10 };
      expect((await verify({ path: folder(SHOP_CODE) })).limits_hit).toContain("bytes");
      // Out of time at once: the run still finishes, and says what it hit.
      t.services.verify.limits = { timeMs: 0 };
      const late = await verify({ target: repo(SHOP_CODE) });
      expect(late.status).toBe("done");
      expect(late.limits_hit).toEqual(["time"]);
    });

    it("a claim replaces the derived targets of its trace ID; its quote must appear exactly once", async () => {
      const dir = repo({
        ...SHOP_CODE,
        "src/pin.ts":
          "export function tries(n: number) {\n  return n >= 5 ? 'locked' : 'open';\n}\nexport const LIMIT = 'locked';\n",
      });
      const run = await verify({
        target: dir,
        claims: [
          {
            trace_id: "REQ-003",
            targets: [{ kind: "code", path: "src/pin.ts", quote: "return n >= 5 ? 'locked' : 'open';" }],
          },
        ],
      });
      const o = byId(run).get("REQ-003")!;
      expect(o.provenance).toBe("claim");
      expect(o.targets).toEqual([
        {
          kind: "code",
          path: "src/pin.ts",
          quote: "return n >= 5 ? 'locked' : 'open';",
          line: 2,
          provenance: "claim",
        },
      ]);
      const claim = (quote: string, path = "src/pin.ts") =>
        t.req("POST", `/docs/${docId}/verifications`, {
          target: dir,
          claims: [{ trace_id: "REQ-003", targets: [{ kind: "code", path, quote }] }],
        });
      const twice = await problem(await claim("'locked'"), 400, "claim_quote_ambiguous");
      expect(twice).toMatchObject({ trace_id: "REQ-003", path: "src/pin.ts", count: 2 });
      const none = await problem(await claim("lockCard("), 400, "claim_quote_not_found");
      expect(none).toMatchObject({ trace_id: "REQ-003", quote: "lockCard(" });
      await problem(await claim("x", "src/nope.ts"), 400, "claim_file_not_found");
      await problem(await claim("x", "../../etc/passwd"), 400, "claim_file_not_found");
      // Nothing was queued by the refused requests.
      expect((await json<{ items: Run[] }>(t.req("GET", `/docs/${docId}/verifications`))).items).toHaveLength(
        1,
      );
    });

    it("streams events by trace ID with ids, resumes after Last-Event-ID, and closes at the end", async () => {
      const dir = repo(SHOP_CODE);
      const run = await verify({ target: dir });
      const res = await t.req("GET", `/verifications/${run.id}/events`);
      expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
      const text = await res.text();
      const events = parseSse(text);
      expect(events.map((e) => e.name)).toEqual(["started", "scanned", ...Array(5).fill("trace_id"), "done"]);
      expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(events[2]!.data).toMatchObject({ trace_id: "REQ-001", outcome: "implemented", level: "MUST" });
      expect(events.at(-1)!.data).toMatchObject({ verdict: "not_verified" });
      const resumed = await (
        await t.req("GET", `/verifications/${run.id}/events`, undefined, { "Last-Event-ID": "6" })
      ).text();
      expect(parseSse(resumed).map((e) => e.id)).toEqual([7, 8]);
      await problem(
        await t.req("GET", `/verifications/00000000-0000-4000-8000-000000000000/events`),
        404,
        "not_found",
      );
    });

    it("flags a run when the bundle gets a new version after it", async () => {
      const run = await verify({ target: repo(SHOP_CODE) });
      expect(run.bundle_changed).toBe(false);
      const doc = await json<{ current_version: { id: string } }>(t.req("GET", `/docs/${docId}`));
      const text = readFileSync(join(t.root, "giftcards/prd.md"), "utf8");
      const put = await t.req(
        "PUT",
        `/docs/${docId}/files/content?path=prd.md&base_version=${doc.current_version.id}`,
        text + "\r\n- One more note.\r\n",
        { "content-type": "text/markdown" },
      );
      expect(put.status, await put.text()).toBe(200);
      expect((await json<Run>(t.req("GET", `/verifications/${run.id}`))).bundle_changed).toBe(true);
    });

    it("answers a run orphaned by a stopped service as failed, not queued forever", async () => {
      const bundleId = (await json<{ bundle_id: string }>(t.req("GET", `/docs/${docId}`))).bundle_id;
      const id = "5b7e0c2a-1f3d-4e6a-8b9c-0d1e2f3a4b5c";
      await t.database.db.insert(verificationRuns).values({
        id,
        docId,
        bundleId,
        versionNumber: 1,
        status: "queued",
        target: { kind: "folder", path: "/srv/shop", name: "/srv/shop" },
        createdBy: "admin",
        createdAt: new Date(Date.now() - 2 * 3600_000),
      });
      const run = await json<Run>(t.req("GET", `/verifications/${id}`));
      expect(run).toMatchObject({ status: "failed", error: expect.stringMatching(/did not finish/) });
      const events = parseSse(await (await t.req("GET", `/verifications/${id}/events`)).text());
      expect(events.map((e) => e.name)).toEqual(["failed"]);
    });

    it("resolves pasted targets and offers defaults: the implemented-by link first, else the last run's", async () => {
      const dir = repo(SHOP_CODE);
      const resolved = await json<Record<string, unknown>>(
        t.req("POST", `/docs/${docId}/verifications/resolve`, { target: dir }),
      );
      expect(resolved).toMatchObject({
        kind: "folder",
        path: dir,
        branch: "main",
        sha: git(dir, "rev-parse", "HEAD"),
      });
      const plain = folder({ "a.ts": "" });
      expect(await json(t.req("POST", `/docs/${docId}/verifications/resolve`, { target: plain }))).toEqual({
        kind: "folder",
        path: plain,
        base_sha: "",
      });
      expect(await json(t.req("GET", `/docs/${docId}/verifications/defaults`))).toEqual({
        items: [{ target: "https://github.com/acme/giftcards", source: "implemented_by" }],
      });
    });

    it("answers every bad target with a problem+json and queues nothing", async () => {
      const post = (body: unknown) => t.req("POST", `/docs/${docId}/verifications`, body);
      await problem(await post({ target: "not a target at all" }), 400, "target_unrecognised");
      await problem(await post({ target: "ftp://example.com/x/y" }), 400, "target_unrecognised");
      // Path segments are no owner/name: `..` and `.` are not repositories.
      await problem(await post({ target: "../x" }), 400, "target_unrecognised");
      await problem(await post({ repo: "acme/.." }), 400, "target_unrecognised");
      await problem(await post({ target: "/etc" }), 403, "folder_not_allowed");
      await problem(await post({ path: "/does/not/exist" }), 404, "folder_not_found");
      await problem(await post({ path: "relative/folder" }), 400, "target_unrecognised");
      await problem(
        await post({ target: repo(SHOP_CODE), sha: "0123456789abcdef0123456789abcdef01234567" }),
        404,
        "commit_not_found",
      );
      await problem(await post({ target: folder({ "a.ts": "" }), sha: "abcdef1" }), 400, "not_a_git_repo");
      await problem(await post({ repo: "acme/giftcards", sha: "not-hex" }), 400, "bad_sha");
      // A folder symlinked from inside the allowed roots to outside is refused after resolving it.
      const link = join(tempFolder(), "etc-link");
      made.push(resolve(link, ".."));
      symlinkSync("/etc", link);
      await problem(await post({ path: link }), 403, "folder_not_allowed");
      // Repo-host targets need the repo-host reader (the GitHub App branch wires it).
      await problem(await post({ target: "acme/giftcards" }), 409, "repohost_reader_missing");
      await problem(
        await post({ target: "https://github.com/acme/giftcards/pull/12" }),
        409,
        "repohost_reader_missing",
      );
      // No target: the implemented-by link is a repo-host repo.
      await problem(await post({}), 409, "repohost_reader_missing");
      await problem(
        await post({ target: repo(SHOP_CODE), handoff_id: "00000000-0000-4000-8000-000000000000" }),
        404,
        "handoff_not_found",
      );
      await problem(
        await t.req("POST", `/docs/${docId}/verifications/resolve`, { target: "" }),
        400,
        "validation_failed",
      );
      expect((await json<{ items: Run[] }>(t.req("GET", `/docs/${docId}/verifications`))).items).toEqual([]);
    });

    it("a repository with no commits, and a git failure mid-run, are answered, never hang", async () => {
      const empty = tempFolder();
      made.push(empty);
      git(empty, "init", "-q", "-b", "main");
      await problem(
        await t.req("POST", `/docs/${docId}/verifications`, { path: empty }),
        404,
        "commit_not_found",
      );
      // The repository disappears between the request and the scan: the run fails with the reason.
      const dir = repo(SHOP_CODE);
      const res = await t.req("POST", `/docs/${docId}/verifications`, { target: dir });
      expect(res.status).toBe(202);
      const queued = (await res.json()) as Run;
      rmSync(join(dir, ".git"), { recursive: true, force: true });
      await t.services.verify.idle();
      const run = await json<Run>(t.req("GET", `/verifications/${queued.id}`));
      if (run.status === "failed") expect(run.error).toMatch(/git|missing|ended/);
      else expect(run.status).toBe("done");
      writeFileSync(join(dir, "x"), "");
    });
  });
}
