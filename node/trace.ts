/**
 * The trace of a folder on disk, with no server (`spec-review trace`, docs/trace.md): the
 * bundles under it, their links, the matrices of every bundle others implement, the IDs
 * nobody takes on, link problems and suggested IDs. Slugs are folders relative to `root`,
 * as the server names them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeText } from "../core/lint/engine.js";
import { parseMarkdown } from "../core/markdown/document.js";
import type { Profile } from "../core/profile/schema.js";
import { docDetail, docLinks } from "../core/trace/doc.js";
import { TraceGraph, type CellState, type TraceDoc } from "../core/trace/graph.js";
import { scanFolder } from "./lint.js";

export interface FolderTrace {
  matrices: {
    upstream: string;
    rows: { id: string; text: string; file: string; line: number }[];
    columns: string[];
    cells: CellState[][];
  }[];
  /** Upstream IDs that no downstream doc names or covers. */
  gaps: { upstream: string; id: string; line: number }[];
  problems: { slug: string; code: string; message: string }[];
  suggestions: { slug: string; id: string; text: string; file: string; line: number }[];
  /** Problems of the folder itself (two spec docs in one folder). */
  invalid: { path: string; message: string }[];
}

export function traceFolder(
  root: string,
  profiles: readonly Profile[],
  exclude: readonly string[] = [],
): FolderTrace {
  const found = scanFolder(root, exclude);
  const byKey = new Map(profiles.map((p) => [p.key, p]));
  const texts: string[] = [];
  const docs: TraceDoc[] = found.bundles.map((b) => {
    const file = b.doc.path;
    const text = decodeText(readFileSync(join(root, b.slug, file))).text;
    texts.push(text);
    return {
      ref: { id: file, bundle_id: b.slug, slug: b.slug, title: b.title, profile_key: b.doc.type },
      ...docLinks(text),
    };
  });
  const graph = new TraceGraph(docs, (k) => byKey.get(k)?.upstream);
  const lines = new Map<number, ReturnType<typeof parseMarkdown>>();
  const detail = (i: number) => {
    const doc = parseMarkdown(texts[i]!);
    lines.set(i, doc);
    const d = docDetail(doc, docs[i]!.ref.id, byKey.get(docs[i]!.ref.profile_key));
    docs[i]!.detail = { ids: d.ids, use: d.use };
    return d;
  };
  const line = (i: number, byte: number) => lines.get(i)!.index.positionOfByte(byte).line;
  const out: FolderTrace = { matrices: [], gaps: [], problems: [], suggestions: [], invalid: found.problems };
  const details = docs.map((_, i) => detail(i));
  docs.forEach((d, i) => {
    for (const p of graph.problems(i)) out.problems.push({ slug: d.ref.slug, ...p });
    for (const s of details[i]!.suggestions)
      out.suggestions.push({
        slug: d.ref.slug,
        id: s.id,
        text: s.text,
        file: s.anchor.file,
        line: line(i, s.anchor.start),
      });
    if (graph.downstreamOf(i).length === 0) return;
    const m = graph.matrix(i);
    out.matrices.push({
      upstream: d.ref.slug,
      rows: m.rows.map((r) => ({
        id: r.id,
        text: r.text,
        file: r.anchor.file,
        line: line(i, r.anchor.start),
      })),
      columns: m.columns.map((c) => docs[c]!.ref.slug),
      cells: m.cells.map((r) => r.map((c) => c.state)),
    });
    m.rows.forEach((r, k) => {
      if (m.cells[k]!.every((c) => c.state === "missing"))
        out.gaps.push({ upstream: d.ref.slug, id: r.id, line: line(i, r.anchor.start) });
    });
  });
  return out;
}
