/**
 * Handoff end to end (docs/handoff.md): the build packet of a Build Ready PRD (CRLF,
 * emoji, a PNG asset, a linked bundle, external targets), refused when the verdict is not
 * a current Build Ready unless acknowledged, the .zip with the same files the CLI writes,
 * the handoff list, and reports: a blocked one opens a blocking thread and reaches the
 * author's inbox.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { unzipSync } from "fflate";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { as, testAuthenticator } from "../../helpers/actors.js";
import { buildQuestions, inboxItems, linkChecks, runs } from "../../../server/db/schema.js";
import type { BlockingThreadInput } from "../../../server/verify/ports.js";

const FIXTURE = resolve(import.meta.dirname, "../../../fixtures/verify");

interface Packet {
  handoff_id: string;
  slug: string;
  main_path: string;
  files: { path: string; content: string; encoding: string }[];
  external_targets: { target: string; kind: string; commit?: string }[];
  ids: { id: string; line: string; level: string }[];
  questions: { number: number; text: string; result: string; answer?: string }[];
  reentry_prompt: string;
  verdict?: { result: string };
  acknowledged: boolean;
  label: string;
}
interface Handoff {
  id: string;
  version_number: number;
  label: string;
  acknowledged: boolean;
  verdict_result?: string;
  reports: number;
}

for (const kind of DB_KINDS) {
  describe(`handoff (${kind})`, () => {
    let t: TestApp;
    afterEach(() => t?.close());

    async function localApp(): Promise<Map<string, { id: string; current_version: { id: string } }>> {
      t = await makeTestApp({ kind, fixture: FIXTURE });
      await t.runs.idle();
      const list = await json<{
        items: { slug: string; docs: { id: string; current_version: { id: string } }[] }[];
      }>(t.req("GET", "/bundles"));
      return new Map(list.items.map((b) => [b.slug, b.docs[0]!]));
    }

    it("answers the packet of a Build Ready bundle: files, external targets, linked bundles, IDs, questions, prompt", async () => {
      const docs = await localApp();
      const doc = docs.get("giftcards")!;
      // A full review with two build questions and a checked code target is the doc's latest verdict.
      const lintRun = (await t.runs.latestRuns([doc.id])).get(doc.id)!;
      const fullId = randomUUID();
      await t.database.db.insert(runs).values({
        ...lintRun,
        id: fullId,
        kind: "full",
        createdBy: "admin",
        createdAt: new Date(lintRun.createdAt.getTime() + 1000),
        verdict: { ...lintRun.verdict!, run_id: fullId, kind: "full" },
      });
      const q = (number: number, result: string, agreedAnswer: string | null) => ({
        runId: fullId,
        id: randomUUID(),
        number,
        text:
          number === 1
            ? "How long is a card locked after five wrong PINs?"
            : "Which currency is the balance shown in?",
        level: "MUST",
        category: "ambiguity",
        cites: [],
        result,
        answers: [],
        groups: [],
        agreedAnswer,
      });
      await t.database.db.insert(buildQuestions).values([q(1, "agree", "24 hours"), q(2, "diverge", null)]);
      await t.database.db.insert(linkChecks).values({
        runId: fullId,
        bundleId: lintRun.bundleId,
        targetUrl: "https://github.com/acme/giftcards",
        state: "aligned",
        stateReason: "read",
        commit: "9f2c1e0a7b3d4c5e6f708192a3b4c5d6e7f80912",
        checkedAt: new Date(),
      });

      const res = await t.req("POST", `/docs/${doc.id}/handoff`, { label: "acme/giftcards#feature/redeem" });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const p = JSON.parse(text) as Packet;
      expect(p.slug).toBe("giftcards");
      expect(p.main_path).toBe("prd.md");
      expect(p.verdict?.result).toBe("build_ready");
      expect(p.acknowledged).toBe(false);
      const byPath = new Map(p.files.map((f) => [f.path, f]));
      expect([...byPath.keys()]).toEqual(["assets/flow.png", "prd.md", "links/payments.md"]);
      // Text exactly as stored (CRLF, emoji); the PNG as base64.
      expect(byPath.get("prd.md")).toEqual({
        path: "prd.md",
        encoding: "text",
        content: readFileSync(join(FIXTURE, "giftcards/prd.md"), "utf8"),
      });
      expect(byPath.get("assets/flow.png")!.encoding).toBe("base64");
      expect(Buffer.from(byPath.get("assets/flow.png")!.content, "base64")).toEqual(
        readFileSync(join(FIXTURE, "giftcards/assets/flow.png")),
      );
      expect(byPath.get("links/payments.md")!.content).toContain("# Payments platform");
      expect(p.external_targets).toEqual([
        { target: "https://github.com/acme/giftcards/issues/12", kind: "issue", link: "references" },
        { target: "https://wiki.example.com/gift-cards", kind: "page", link: "references" },
        {
          target: "https://github.com/acme/giftcards",
          kind: "code",
          link: "implemented-by",
          commit: "9f2c1e0a7b3d4c5e6f708192a3b4c5d6e7f80912",
        },
      ]);
      expect(p.ids.map((i) => [i.id, i.level])).toEqual([
        ["REQ-001", "MUST"],
        ["REQ-002", "MUST"],
        ["REQ-003", "MUST"],
        ["REQ-004", "SHOULD"],
        ["NFR-001", "MUST"],
      ]);
      expect(p.ids[0]!.line).toContain("16-digit gift card number");
      expect(p.questions.map((x) => [x.number, x.result, x.answer])).toEqual([
        [1, "agree", "24 hours"],
        [2, "diverge", undefined],
      ]);
      expect(p.reentry_prompt).toMatch(/^# Build: Gift card redemption online 🎁/);
      expect(p.reentry_prompt).toContain(`/handoffs/${p.handoff_id}/report`);
      expect(p.reentry_prompt).toContain("**REQ-001** (MUST)");
      expect(p.reentry_prompt).toContain("agreed answer: 24 hours");

      const list = await json<{ items: Handoff[] }>(t.req("GET", `/docs/${doc.id}/handoff`));
      expect(list.items).toEqual([
        expect.objectContaining({
          id: p.handoff_id,
          label: "acme/giftcards#feature/redeem",
          acknowledged: false,
          verdict_result: "build_ready",
          reports: 0,
          version_number: 1,
        }),
      ]);
    });

    it("refuses a verdict that is not Build Ready unless acknowledged, and records the verdict it was taken at", async () => {
      const docs = await localApp();
      const doc = docs.get("giftcards")!;
      const text = readFileSync(join(FIXTURE, "giftcards/prd.md"), "utf8").replace(
        "**REQ-002**",
        "**REQ-001**",
      );
      const put = await t.req(
        "PUT",
        `/docs/${doc.id}/files/content?path=prd.md&base_version=${doc.current_version.id}`,
        text,
        { "content-type": "text/markdown" },
      );
      expect(put.status, await put.text()).toBe(200);
      const refused = await problem(
        await t.req("POST", `/docs/${doc.id}/handoff`, {}),
        409,
        "handoff_not_ready",
      );
      expect(refused.verdict_result).toBe("not_build_ready");
      await problem(await t.req("POST", `/docs/${doc.id}/handoff/zip`), 409, "handoff_not_ready");
      expect((await json<{ items: Handoff[] }>(t.req("GET", `/docs/${doc.id}/handoff`))).items).toEqual([]);

      const p = await json<Packet>(
        t.req("POST", `/docs/${doc.id}/handoff`, { acknowledged: true, label: "spike" }),
      );
      expect(p.acknowledged).toBe(true);
      expect(p.verdict?.result).toBe("not_build_ready");
      expect(p.reentry_prompt).toContain("taken anyway, acknowledged");
      const [h] = (await json<{ items: Handoff[] }>(t.req("GET", `/docs/${doc.id}/handoff`))).items;
      expect(h).toMatchObject({
        acknowledged: true,
        verdict_result: "not_build_ready",
        version_number: 2,
        label: "spike",
      });
    });

    it("answers the same packet as a .zip: prompt first, spec files, links/, a JSON manifest", async () => {
      const docs = await localApp();
      const doc = docs.get("giftcards")!;
      const res = await t.req("POST", `/docs/${doc.id}/handoff/zip`, { label: "zip" });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/zip");
      expect(res.headers.get("content-disposition")).toContain("giftcards-handoff.zip");
      const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
      expect(Object.keys(files)).toEqual([
        "HANDOFF.md",
        "handoff.json",
        "assets/flow.png",
        "prd.md",
        "links/payments.md",
      ]);
      expect(Buffer.from(files["prd.md"]!)).toEqual(readFileSync(join(FIXTURE, "giftcards/prd.md")));
      expect(Buffer.from(files["assets/flow.png"]!)).toEqual(
        readFileSync(join(FIXTURE, "giftcards/assets/flow.png")),
      );
      const manifest = JSON.parse(Buffer.from(files["handoff.json"]!).toString()) as Record<string, unknown>;
      expect(manifest).toMatchObject({
        slug: "giftcards",
        main_path: "prd.md",
        prompt_path: "HANDOFF.md",
        label: "zip",
      });
      expect(manifest.files).toContainEqual({
        path: "assets/flow.png",
        encoding: "base64",
        bytes: readFileSync(join(FIXTURE, "giftcards/assets/flow.png")).length,
      });
      expect(Buffer.from(files["HANDOFF.md"]!).toString()).toContain(
        `/handoffs/${String(manifest.handoff_id)}/report`,
      );
    });

    it("records reports; bad bodies and unknown handoffs are problems", async () => {
      const docs = await localApp();
      const doc = docs.get("giftcards")!;
      const p = await json<Packet>(t.req("POST", `/docs/${doc.id}/handoff`, {}));
      const res = await t.req("POST", `/handoffs/${p.handoff_id}/report`, {
        result: "built",
        body: "Built all five; REQ-004 needs the mail template.",
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({
        handoff_id: p.handoff_id,
        result: "built",
        handoff_version: 1,
      });
      // Threads are not wired on this branch: a blocked report is recorded without a thread.
      const blocked = await json<Record<string, unknown>>(
        t.req("POST", `/handoffs/${p.handoff_id}/report`, { result: "blocked", body: "Which currency?" }),
      );
      expect(blocked).not.toHaveProperty("thread_id");
      expect(
        (await json<{ items: Handoff[] }>(t.req("GET", `/docs/${doc.id}/handoff`))).items[0]!.reports,
      ).toBe(2);
      await problem(
        await t.req("POST", `/handoffs/${p.handoff_id}/report`, { result: "done", body: "x" }),
        400,
        "validation_failed",
      );
      await problem(
        await t.req("POST", `/handoffs/${p.handoff_id}/report`, { result: "built", body: "" }),
        400,
        "validation_failed",
      );
      await problem(
        await t.req("POST", `/handoffs/${randomUUID()}/report`, { result: "built", body: "x" }),
        404,
        "handoff_not_found",
      );
      await problem(
        await t.req("POST", `/handoffs/not-a-uuid/report`, { result: "built", body: "x" }),
        400,
        "validation_failed",
      );
      await problem(await t.req("POST", `/docs/${randomUUID()}/handoff`, {}), 404, "not_found");
      await problem(await t.req("POST", `/docs/${doc.id}/handoff`, { label: 5 }), 400, "validation_failed");
    });

    it("hosted: a blocked report opens a blocking thread with the handoff and reaches the author's inbox", async () => {
      const auth = testAuthenticator();
      t = await makeTestApp({ kind, mode: "hosted", auth });
      auth.bind(t.services);
      const opened: BlockingThreadInput[] = [];
      t.services.verify.ports.threads = {
        openBlocking: (input) => {
          opened.push(input);
          return Promise.resolve({ threadId: "7d1b6a3e-5c1f-4e7a-9a0b-2f3c4d5e6f70" });
        },
      };
      const created = await json<{ id: string; path: string; current_version: { id: string } }>(
        t.req("POST", "/bundles", { profile: "prd", name: "giftcards" }, as("author")),
      );
      const put = await t.req(
        "PUT",
        `/docs/${created.id}/files/content?path=${created.path}&base_version=${created.current_version.id}`,
        readFileSync(join(FIXTURE, "giftcards/prd.md"), "utf8").replace(/references: .*\r\n/, ""),
        { "content-type": "text/markdown", ...as("author") },
      );
      expect(put.status, await put.text()).toBe(200);
      await problem(await t.req("POST", `/docs/${created.id}/handoff`, {}, as("viewer")), 403, "forbidden");
      const p = await json<Packet>(
        t.req("POST", `/docs/${created.id}/handoff`, { label: "sprint 12" }, as("member")),
      );
      const report = await json<Record<string, unknown>>(
        t.req(
          "POST",
          `/handoffs/${p.handoff_id}/report`,
          {
            result: "blocked",
            body: "REQ-002 says balance but not in which currency.",
            anchor: { heading_path: ["Gift card redemption online 🎁", "Requirements"] },
          },
          as("member"),
        ),
      );
      expect(report).toMatchObject({
        result: "blocked",
        thread_id: "7d1b6a3e-5c1f-4e7a-9a0b-2f3c4d5e6f70",
        handoff_version: 2,
      });
      expect(opened).toEqual([
        expect.objectContaining({
          docId: created.id,
          createdBy: "u-member",
          handoffId: p.handoff_id,
          handoffVersion: 2,
          anchor: { heading_path: ["Gift card redemption online 🎁", "Requirements"] },
        }),
      ]);
      const inbox = await t.database.db
        .select()
        .from(inboxItems)
        .where(and(eq(inboxItems.userId, "u-author"), eq(inboxItems.kind, "handoff_blocked")));
      expect(inbox).toHaveLength(1);
      expect(inbox[0]).toMatchObject({
        docId: created.id,
        threadId: "7d1b6a3e-5c1f-4e7a-9a0b-2f3c4d5e6f70",
        actorId: "u-member",
      });
      expect(inbox[0]!.summary).toContain("Mo Member is blocked");
      // A viewer cannot report; nobody signed in cannot read the list.
      await problem(
        await t.req("POST", `/handoffs/${p.handoff_id}/report`, { result: "built", body: "x" }, as("viewer")),
        403,
        "forbidden",
      );
      await problem(await t.req("GET", `/docs/${created.id}/handoff`), 401, "unauthenticated");
    });
  });
}
