/**
 * Checking what a new thread is anchored to (contract 2.10) against the doc's current
 * version, before anything is written: a text anchor's quote must be in its file (at its
 * offsets, or found again by its context), a section must exist, a finding must be one
 * of the doc's, a check one of its profile's. The stored anchor is the service's own
 * (offsets, context and heading path recomputed), never the client's word for it.
 */
import { and, eq } from "drizzle-orm";
import { anchorAtBytes, reanchor, type Anchor } from "../../core/anchor/index.js";
import { decodeText } from "../../core/lint/engine.js";
import { normalizeTitle, parseMarkdown } from "../../core/markdown/document.js";
import type { Deps } from "../deps.js";
import { findings, runs } from "../db/schema.js";
import { ApiError, ValidationError } from "../errors.js";
import type { DocRecord } from "../store/types.js";
import type { AnchorKind } from "./views.js";

export interface CheckedAnchor {
  anchor: Record<string, unknown>;
  /** For a text anchor: the version its offsets belong to. */
  versionId?: string;
  versionNumber?: number;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

function shapeError(kind: AnchorKind, fields: string): ValidationError {
  return new ValidationError(`an anchor of kind ${kind} has ${fields}`, [
    { field: "body.anchor", message: `expected ${fields}` },
  ]);
}

/** A text anchor of the doc's current version, or the problem with it. */
async function textAnchor(d: Deps, rec: DocRecord, a: Record<string, unknown>): Promise<CheckedAnchor> {
  const { file, start, end, quote } = a;
  if (
    typeof file !== "string" ||
    typeof start !== "number" ||
    typeof end !== "number" ||
    typeof quote !== "string"
  )
    throw shapeError("text", "file, heading_path, quote, prefix, suffix, start and end");
  if (quote === "")
    throw new ValidationError("the anchor's quote is empty", [
      { field: "body.anchor.quote", message: "empty" },
    ]);
  const path = file === "" ? rec.doc.path : file;
  const listed = await d.store.manifest(rec.head.id);
  if (!listed.some((f) => f.path === path))
    throw new ApiError(
      "anchor_file_not_found",
      `version ${rec.head.number} has no file ${JSON.stringify(path)}`,
    );
  const { bytes } = await d.store.fileBytes(rec.head.id, path);
  if (start < 0 || end < start || end > bytes.length)
    throw new ApiError(
      "anchor_out_of_range",
      `bytes ${start}..${end} are outside ${path}, which has ${bytes.length} bytes in version ${rec.head.number}`,
    );
  const doc = parseMarkdown(decodeText(bytes).text);
  const here = anchorAtBytes(doc, path, start, end);
  let anchor: Anchor = here;
  if (here.quote !== quote) {
    // Offsets of another version (or counted in characters): find the quote by its context.
    anchor = reanchor(doc, {
      file: path,
      heading_path: isStrings(a.heading_path) ? a.heading_path : [],
      quote,
      prefix: typeof a.prefix === "string" ? a.prefix : "",
      suffix: typeof a.suffix === "string" ? a.suffix : "",
      start,
      end,
    });
    if (anchor.detached)
      throw new ApiError(
        "anchor_quote_not_found",
        `${path} has no ${JSON.stringify(quote.slice(0, 80))} in version ${rec.head.number}`,
      );
  }
  return { anchor: { ...anchor }, versionId: rec.head.id, versionNumber: rec.head.number };
}

async function sectionAnchor(d: Deps, rec: DocRecord, a: Record<string, unknown>): Promise<CheckedAnchor> {
  if (!isStrings(a.heading_path)) throw shapeError("section", "heading_path");
  const { bytes } = await d.store.fileBytes(rec.head.id, rec.doc.path);
  const doc = parseMarkdown(decodeText(bytes).text);
  const wanted = a.heading_path.map(normalizeTitle).join("\u0000");
  const found = doc.sections.find((s) => s.heading_path.map(normalizeTitle).join("\u0000") === wanted);
  if (!found || a.heading_path.length === 0)
    throw new ApiError(
      "section_not_found",
      `the doc has no section ${a.heading_path.join(" › ") || "(empty path)"}`,
    );
  return { anchor: { heading_path: found.heading_path } };
}

async function findingAnchor(d: Deps, rec: DocRecord, a: Record<string, unknown>): Promise<CheckedAnchor> {
  if (typeof a.finding_id !== "string" || typeof a.check_slug !== "string")
    throw shapeError("finding", "finding_id and check_slug");
  const [row] = await d.db
    .select({ check: findings.checkSlug })
    .from(findings)
    .innerJoin(runs, eq(runs.id, findings.runId))
    .where(and(eq(runs.docId, rec.doc.id), eq(findings.id, a.finding_id)))
    .limit(1);
  if (!row || row.check !== a.check_slug)
    throw new ApiError(
      "anchor_finding_not_found",
      row
        ? `finding ${a.finding_id} is of check ${row.check}, not ${a.check_slug}`
        : `no run of the doc has finding ${a.finding_id}`,
    );
  return { anchor: { finding_id: a.finding_id, check_slug: a.check_slug } };
}

/** The checks a profile has, for `check` anchors. */
export function checkSlugs(d: Deps, profileKey: string): string[] {
  return d.profiles.get(profileKey)?.checks.map((c) => c.slug) ?? [];
}

function checkKindAnchor(d: Deps, profileKey: string, a: Record<string, unknown>): CheckedAnchor {
  if (typeof a.check_slug !== "string") throw shapeError("check", "check_slug");
  if (!checkSlugs(d, profileKey).includes(a.check_slug))
    throw new ApiError("unknown_check", `profile ${profileKey} has no check ${a.check_slug}`);
  return { anchor: { check_slug: a.check_slug } };
}

/** The anchor to store for a new thread on `rec`, or the problem+json error that says why not. */
export function checkThreadAnchor(
  d: Deps,
  rec: DocRecord,
  kind: AnchorKind,
  anchor: unknown,
): Promise<CheckedAnchor> {
  const a = (anchor ?? {}) as Record<string, unknown>;
  switch (kind) {
    case "text":
      return textAnchor(d, rec, a);
    case "section":
      return sectionAnchor(d, rec, a);
    case "finding":
      return findingAnchor(d, rec, a);
    case "check":
      return Promise.resolve(checkKindAnchor(d, rec.doc.profileKey, a));
  }
}
