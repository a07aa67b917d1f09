/**
 * Heavy work off the request loop (server/heavy): the worker threads give the same
 * answers as the in-process code, the loop keeps turning while they work, and the
 * routes that do heavy work on a large doc use them.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_THRESHOLD_BYTES, HeavyPool } from "../../server/heavy/pool.js";
import { FINDINGS_PART, runTask, type HeavyTask } from "../../server/heavy/tasks.js";
import { loadProfileLayersCached } from "../../node/profiles.js";
import { builtinProfilesDir } from "../../node/package.js";
import { renderMarkdown } from "../../core/render/html.js";
import { bigDoc, editDoc } from "../../bench/lib/bigdoc.js";
import { json, makeTestApp, type TestApp } from "../helpers/app.js";
import type { BundleList } from "../helpers/types.js";

const { profiles } = loadProfileLayersCached([{ dir: builtinProfilesDir(), origin: "built-in" }]);
const pool = new HeavyPool({ thresholdBytes: 0, size: 1, idleMs: 1000 });
afterAll(() => pool.close());

describe("the heavy-work pool", () => {
  const text = bigDoc({ sections: 150, seed: 11 });
  const bytes = Buffer.from(text);

  it("answers render, report, lint and diff on a worker exactly as in process", async () => {
    const tasks: HeavyTask[] = [
      { kind: "render", markdown: text },
      {
        kind: "lint",
        input: {
          files: new Map([
            ["spec.md", bytes],
            ["img.png", new Uint8Array([1])],
          ]),
          mainPath: "spec.md",
          profiles,
        },
      },
      {
        kind: "diff",
        from: new Map([["spec.md", bytes]]),
        to: new Map([
          ["spec.md", Buffer.from(editDoc(text))],
          ["new.txt", Buffer.from("x\n")],
        ]),
        mainDoc: "spec.md",
      },
      {
        kind: "report",
        report: {
          bytes,
          fallbackTitle: "Fallback",
          slug: "big",
          profile: { key: "prd" },
          path: "spec.md",
          version: { number: 3, created_at: "2026-01-02T03:04:05.000Z", created_by: "ann", message: "" },
          findingsJson: "[]",
          generatedAt: "2026-01-02T03:04:05.000Z",
        },
      },
    ];
    const before = pool.offloaded;
    for (const task of tasks) expect(await pool.run(task), task.kind).toEqual(runTask(task));
    expect(pool.offloaded - before).toBe(tasks.length);
    // The report reads the title and the assumptions from the text itself.
    // It answers UTF-8 bytes (moved from the worker, not copied).
    const html = new TextDecoder().decode((await pool.run(tasks[3]!)) as Uint8Array);
    expect(html).toContain("<title>Generated large spec · v3");
    expect(html).toContain('class="assumptions"');
  }, 180_000);

  it("answers a lint with thousands of findings complete and in order (sent in parts)", async () => {
    const task: HeavyTask = {
      kind: "lint",
      input: {
        files: new Map([["spec.md", Buffer.from(bigDoc({ sections: 12000, seed: 5 }))]]),
        mainPath: "spec.md",
        profiles,
      },
    };
    const inProcess = runTask(task) as { findings: unknown[] };
    expect(inProcess.findings.length).toBeGreaterThan(2 * FINDINGS_PART);
    expect(await pool.run(task)).toEqual(inProcess);
    // The pool is free for the next task, whose answer is its own.
    expect(await pool.renderMarkdown("# Next\n")).toBe(renderMarkdown("# Next\n"));
  }, 180_000);

  it("keeps the event loop turning while a large doc renders", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const html = await pool.renderMarkdown(bigDoc({ sections: 800 }));
      expect(html).toContain("<h2");
    } finally {
      clearInterval(timer);
    }
    // In process the render would hold the loop from start to end: no tick at all.
    expect(ticks).toBeGreaterThan(0);
  }, 120_000);

  it("reports a task's error and keeps serving", async () => {
    const files = new Map([["spec.md", "# x\n"]]);
    await expect(
      pool.run({ kind: "lint", input: { files, mainPath: "spec.md", profiles: [] } }),
    ).rejects.toThrow(/needs a profile/);
    expect(await pool.renderMarkdown("# Still here\n")).toContain("Still here");
  });

  it("runs small inputs in process", async () => {
    const small = new HeavyPool();
    const before = small.offloaded;
    expect(await small.renderMarkdown("# Small\n")).toBe(renderMarkdown("# Small\n"));
    expect(small.offloaded).toBe(before);
    await small.close();
  });
});

describe("routes with a large doc", () => {
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });

  it("answer GET /meta while the large doc's report, diff and render are made", async () => {
    const folder = mkdtempSync(join(tmpdir(), "heavy-"));
    mkdirSync(join(folder, "big"));
    const text = bigDoc({ sections: 800 });
    expect(Buffer.byteLength(text)).toBeGreaterThan(DEFAULT_THRESHOLD_BYTES);
    writeFileSync(join(folder, "big", "spec.md"), text);
    t = await makeTestApp({ fixture: folder });
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const doc = list.items[0]!.docs[0]!;
    await t.runs.idle();
    const saved = await t.req(
      "PUT",
      `/docs/${doc.id}/files/content?path=spec.md&base_version=${doc.current_version.id}`,
      editDoc(text),
      { "content-type": "application/octet-stream" },
    );
    expect(saved.status).toBe(200);
    await t.runs.idle();

    const before = t.services.heavy.offloaded;
    const order: string[] = [];
    const timed = <T>(name: string, p: Promise<T>) => p.then((v) => (order.push(name), v));
    const [report, diff, render] = await Promise.all([
      timed("export", t.req("GET", `/docs/${doc.id}/export?format=html`)),
      timed("diff", t.req("GET", `/docs/${doc.id}/diff`)),
      timed("render", t.req("POST", "/render", { markdown: text })),
      timed("meta", t.req("GET", "/meta")),
    ]);
    // The heavy three ran on worker threads, so the light request was answered first.
    expect(order[0]).toBe("meta");
    expect(t.services.heavy.offloaded - before).toBe(3);
    expect(report.status).toBe(200);
    expect(await report.text()).toContain('class="markdown"');
    const d = (await diff.json()) as { files: Array<{ additions: number }>; sections: unknown[] };
    expect(d.files[0]!.additions).toBeGreaterThan(0);
    expect(d.sections.length).toBeGreaterThan(0);
    expect(((await render.json()) as { html: string }).html).toBe(renderMarkdown(text));
  }, 300_000);
});
