/**
 * GET /docs/{docId}/export?format=html: gathers the current version, its verdict,
 * findings and assumptions, and answers the report of core/report/html.ts.
 */
import type { Context } from "hono";
import { adoptionNote } from "../../core/lint/adopt.js";
import type { ReportFinding } from "../../core/report/html.js";
import { ValidationError } from "../errors.js";
import { deps, type Env } from "../http.js";
import { docVerdict } from "../runs.js";
import { findingOfRow } from "../findings.js";
import { mediaType } from "../routes/docs/media.js";
import { findingsJson } from "../heavy/tasks.js";
import { slices } from "../slices.js";

const IMAGE = /\.(png|jpe?g|gif|webp|svg)$/i;

export async function htmlReport(
  c: Context<Env>,
  docId: string,
  versionRef: string | undefined,
): Promise<Response> {
  const { store, runs, profiles, clock, heavy } = deps(c);
  const bundleId = await store.bundleIdOfDoc(docId);
  await store.refreshBundle(bundleId);
  await runs.settled(docId);
  const row = await store.doc(docId);
  const head = await store.resolveVersion(bundleId);
  if (versionRef !== undefined && versionRef !== "") {
    const asked = await store.resolveVersion(bundleId, versionRef);
    if (asked.id !== head.id)
      throw new ValidationError(
        "the HTML report is of the current version; use format=zip for an older one",
        [{ field: "query.version", message: `the current version is ${head.number}` }],
      );
  }
  const files = await store.snapshot(head.id);
  const bytes = files.get(row.doc.path) ?? new Uint8Array();
  const run = (await runs.latestRuns([docId])).get(docId);
  const verdict = docVerdict(run, head.number);
  // Findings of a run on another version would point at text that moved: show them only when current.
  const rows = run && run.versionNumber === head.number ? await runs.findings(run.id) : [];
  // A large doc has tens of thousands of findings: made (and written as JSON for the
  // worker) in slices of the request loop.
  const pause = slices();
  const findings: ReportFinding[] = [];
  for (const row of rows) {
    await pause();
    const { stage: _stage, anchor, ...f } = findingOfRow(row);
    findings.push({ ...f, ...(anchor ? { anchor } : {}) });
  }
  // What adoption lowered, in the words the CLI and the Action use.
  const adoption =
    run && run.versionNumber === head.number && run.adopt
      ? adoptionNote({ adopt: run.adopt, profile_key: run.profileKey, size: run.adopt.size ?? "", findings })
      : undefined;
  const images = new Map<string, { mediaType: string; bytes: Uint8Array }>();
  for (const [path, data] of files)
    if (IMAGE.test(path)) images.set(path, { mediaType: mediaType(path, data), bytes: data });
  const profile = profiles.get(row.doc.profileKey);
  // Parsing and rendering a large doc takes seconds: on a worker thread then (server/heavy),
  // which answers the page as UTF-8 bytes.
  const html = await heavy.run({
    kind: "report",
    report: {
      bytes,
      fallbackTitle: row.bundle.title,
      slug: row.bundle.slug,
      profile: {
        key: row.doc.profileKey,
        ...(profile
          ? { title: profile.title, radar: profile.radar.map((r) => ({ key: r.key, title: r.title })) }
          : {}),
      },
      path: row.doc.path,
      version: head,
      ...(verdict ? { verdict } : {}),
      findingsJson: await findingsJson(findings, pause),
      ...(adoption ? { adoptionNote: adoption } : {}),
      images,
      generatedAt: clock.now().toISOString(),
    },
  });
  const name = `${row.bundle.title}-v${head.number}-report.html`.replace(/[^\w.-]+/g, "_");
  return new Response(inPieces(html), {
    status: 200,
    headers: {
      "content-length": String(html.byteLength),
      "content-type": "text/html; charset=utf-8",
      "content-disposition": `inline; filename="${name}"`,
      "content-security-policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
      "x-content-type-options": "nosniff",
      "x-version-id": head.id,
    },
  });
}

/** Bytes written to the socket at a time. */
const PIECE = 256 * 1024;

/**
 * The page as a stream of pieces: the report of a large doc is tens of MB, and a body of
 * one buffer was copied whole on the request loop when the response was wrapped again
 * (a header added after the route, server/ops.ts).
 */
function inPieces(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(at, at + PIECE));
      at += PIECE;
    },
  });
}
