/** Comparing two versions of a bundle: by file, and by section of the main doc. */
import { lineChangeCounts, lineHunks, twoFilesPatch } from "../../../core/diff/lines.js";
import { parseMarkdown, sectionTexts } from "../../../core/markdown/document.js";

export interface FileDiff {
  path: string;
  change: "added" | "removed" | "modified";
  binary: boolean;
  additions: number;
  deletions: number;
  /** Unified diff; absent for binary files. */
  patch?: string;
}

export interface SectionDiff {
  heading_path: string[];
  change: "added" | "removed" | "modified";
  additions: number;
  deletions: number;
  patch: string;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The text of a file, or null when its bytes are not UTF-8 (an asset shown as bytes). */
export function asText(bytes: Uint8Array | undefined): string | null {
  if (!bytes) return "";
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** Lines added and removed (near-linear on long docs: see core/diff/lines.ts). */
const counts = lineChangeCounts;

export function diffFiles(from: Map<string, Uint8Array>, to: Map<string, Uint8Array>): FileDiff[] {
  const paths = [...new Set([...from.keys(), ...to.keys()])].sort();
  const out: FileDiff[] = [];
  for (const path of paths) {
    const a = from.get(path);
    const b = to.get(path);
    if (a && b && Buffer.compare(a, b) === 0) continue;
    const change = !a ? "added" : !b ? "removed" : "modified";
    const ta = asText(a);
    const tb = asText(b);
    if (ta === null || tb === null) {
      out.push({ path, change, binary: true, additions: 0, deletions: 0 });
      continue;
    }
    out.push({
      path,
      change,
      binary: false,
      ...counts(ta, tb),
      patch: twoFilesPatch(a ? `a/${path}` : "/dev/null", b ? `b/${path}` : "/dev/null", ta, tb, 3),
    });
  }
  return out;
}

export function diffSections(from: string, to: string): SectionDiff[] {
  const before = sectionTexts(parseMarkdown(from));
  const after = sectionTexts(parseMarkdown(to));
  const beforeByKey = new Map(before.map((s) => [s.key, s]));
  const afterKeys = new Set(after.map((s) => s.key));
  const out: SectionDiff[] = [];
  const push = (heading_path: string[], change: SectionDiff["change"], a: string, b: string) =>
    out.push({
      heading_path,
      change,
      ...counts(a, b),
      patch: lineHunks(a, b, 2)
        .map((h) =>
          [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join("\n"),
        )
        .join("\n"),
    });
  for (const s of after) {
    const old = beforeByKey.get(s.key);
    if (!old) push(s.heading_path, "added", "", s.text);
    else if (old.text !== s.text) push(s.heading_path, "modified", old.text, s.text);
  }
  for (const s of before) if (!afterKeys.has(s.key)) push(s.heading_path, "removed", s.text, "");
  return out;
}
