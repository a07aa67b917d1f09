/**
 * A lint run after a full review keeps counting that review's AI findings (contract 2.4):
 * the findings of the doc's latest done full run, re-anchored in the new text (a quote
 * that is gone is `detached`), with the version the review read and how many sections of
 * the spec doc changed since.
 */
import { and, desc, eq, lte, ne } from "drizzle-orm";
import { reanchor } from "../../core/anchor/anchor.js";
import { decodeText } from "../../core/lint/engine.js";
import { parseMarkdown, sectionTexts } from "../../core/markdown/document.js";
import type { Db } from "../db/index.js";
import { findings, runs } from "../db/schema.js";
import { findingOfRow, type RunFinding } from "../findings.js";
import { ApiError } from "../errors.js";
import type { BundleStore } from "../store/types.js";

/** A finding carried from the full review: the same shape as any run finding. */
export type CarriedFinding = RunFinding;

export interface AiCarry {
  runId: string;
  versionNumber: number;
  sectionsChanged: number;
  findings: CarriedFinding[];
}

/** Sections whose own text differs between two texts of a doc (added and removed ones too). */
export function sectionsChanged(before: string, after: string): number {
  const a = new Map(sectionTexts(parseMarkdown(before)).map((s) => [s.key, s.text.trim()]));
  const b = new Map(sectionTexts(parseMarkdown(after)).map((s) => [s.key, s.text.trim()]));
  let n = 0;
  for (const key of new Set([...a.keys(), ...b.keys()])) if (a.get(key) !== b.get(key)) n++;
  return n;
}

export async function aiCarry(
  db: Db,
  store: BundleStore,
  docId: string,
  versionNumber: number,
  mainPath: string,
  files: ReadonlyMap<string, Uint8Array>,
): Promise<AiCarry | undefined> {
  const [full] = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.docId, docId),
        eq(runs.kind, "full"),
        eq(runs.status, "done"),
        lte(runs.versionNumber, versionNumber),
      ),
    )
    .orderBy(desc(runs.versionNumber), desc(runs.finishedAt))
    .limit(1);
  if (!full) return undefined;
  const rows = await db
    .select()
    .from(findings)
    .where(and(eq(findings.runId, full.id), ne(findings.stage, "lint")));
  const nowBytes = files.get(mainPath);
  const nowText = nowBytes ? decodeText(nowBytes).text : "";
  // The main doc may have had another path when the review read it: then every section counts as changed.
  const thenText = await store.fileBytes(full.versionId, mainPath).then(
    (r) => decodeText(r.bytes).text,
    (err: unknown) => {
      if (err instanceof ApiError && err.code === "file_not_found") return "";
      throw err;
    },
  );
  const doc = parseMarkdown(nowText);
  return {
    runId: full.id,
    versionNumber: full.versionNumber,
    sectionsChanged: thenText === nowText ? 0 : sectionsChanged(thenText, nowText),
    findings: rows.map(findingOfRow).map((f) => ({
      ...f,
      anchor: f.anchor && f.anchor.file === mainPath ? reanchor(doc, f.anchor) : f.anchor,
    })),
  };
}
