/**
 * Line diffs that stay near-linear on long docs with edits all over them.
 *
 * A plain Myers diff costs O((N + M) * D): on a 20,000-section doc where a team touched
 * every twentieth section, D grows with N and the diff turns quadratic. Here the two
 * texts are first cut at their common prefix and suffix, then at the lines that occur
 * exactly once in each (patience diff: the longest run of such anchors in the same
 * order); only the short stretches between anchors go through Myers (jsdiff). The
 * result is an edit script of the same kind jsdiff gives, turned into the same unified
 * diff text (`formatPatch`), so callers see no difference but the time.
 */
import { diffArrays, formatPatch, type StructuredPatchHunk } from "diff";

/** A line with its line break ("\n" or "\r\n"); the last line may have none. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", from)) {
    out.push(text.slice(from, i + 1));
    from = i + 1;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/** A run of the edit script: `count` lines kept (" "), removed ("-") or added ("+"). */
export interface Run {
  op: " " | "-" | "+";
  count: number;
}

/** Stretches without anchors longer than this (lines on both sides) skip Myers: removed, then added. */
const MYERS_LIMIT = 4000;

/** The edit script turning lines `a` into lines `b`: removals before additions in each change. */
export function diffLineArrays(a: readonly string[], b: readonly string[]): Run[] {
  const runs: Run[] = [];
  const emit = (op: Run["op"], count: number) => {
    if (count <= 0) return;
    const last = runs[runs.length - 1];
    if (last && last.op === op) last.count += count;
    else runs.push({ op, count });
  };
  const changed = (del: number, ins: number) => {
    emit("-", del);
    emit("+", ins);
  };
  // An explicit stack of ranges, in order, so deep recursion cannot overflow.
  type Task =
    { kind: "range"; alo: number; ahi: number; blo: number; bhi: number } | { kind: "same"; n: number };
  const stack: Task[] = [{ kind: "range", alo: 0, ahi: a.length, blo: 0, bhi: b.length }];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t.kind === "same") {
      emit(" ", t.n);
      continue;
    }
    let { alo, ahi, blo, bhi } = t;
    let head = 0;
    while (alo < ahi && blo < bhi && a[alo] === b[blo]) {
      alo++;
      blo++;
      head++;
    }
    let tail = 0;
    while (ahi > alo && bhi > blo && a[ahi - 1] === b[bhi - 1]) {
      ahi--;
      bhi--;
      tail++;
    }
    emit(" ", head);
    if (alo === ahi || blo === bhi) {
      changed(ahi - alo, bhi - blo);
      emit(" ", tail);
      continue;
    }
    const anchors = uniqueAnchors(a, alo, ahi, b, blo, bhi);
    if (anchors.length > 0) {
      // Push in reverse so the stretches come off the stack in order.
      const tasks: Task[] = [];
      let pa = alo;
      let pb = blo;
      for (const [ia, ib] of anchors) {
        tasks.push({ kind: "range", alo: pa, ahi: ia, blo: pb, bhi: ib }, { kind: "same", n: 1 });
        pa = ia + 1;
        pb = ib + 1;
      }
      tasks.push({ kind: "range", alo: pa, ahi, blo: pb, bhi }, { kind: "same", n: tail });
      for (let i = tasks.length - 1; i >= 0; i--) stack.push(tasks[i]!);
      continue;
    }
    myers(a.slice(alo, ahi), b.slice(blo, bhi), emit, changed);
    emit(" ", tail);
  }
  return runs;
}

function myers(
  a: string[],
  b: string[],
  emit: (op: Run["op"], count: number) => void,
  changed: (del: number, ins: number) => void,
): void {
  if (a.length + b.length > MYERS_LIMIT) return changed(a.length, b.length);
  const parts = diffArrays(a, b, { maxEditLength: MYERS_LIMIT });
  if (!parts) return changed(a.length, b.length);
  let del = 0;
  let ins = 0;
  for (const p of parts) {
    if (p.removed) del += p.count;
    else if (p.added) ins += p.count;
    else {
      changed(del, ins);
      del = ins = 0;
      emit(" ", p.count);
    }
  }
  changed(del, ins);
}

/**
 * Pairs of positions of lines occurring exactly once in `a[alo, ahi)` and once in
 * `b[blo, bhi)`, the longest chain increasing on both sides (patience sorting).
 */
function uniqueAnchors(
  a: readonly string[],
  alo: number,
  ahi: number,
  b: readonly string[],
  blo: number,
  bhi: number,
): Array<[number, number]> {
  // -1: seen more than once on that side.
  const seen = new Map<string, { ia: number; ib: number }>();
  for (let i = alo; i < ahi; i++) {
    const e = seen.get(a[i]!);
    if (e) e.ia = -1;
    else seen.set(a[i]!, { ia: i, ib: -2 });
  }
  for (let j = blo; j < bhi; j++) {
    const e = seen.get(b[j]!);
    if (!e) continue;
    e.ib = e.ib === -2 ? j : -1;
  }
  const pairs: Array<[number, number]> = [];
  for (let i = alo; i < ahi; i++) {
    const e = seen.get(a[i]!)!;
    if (e.ia === i && e.ib >= 0) pairs.push([i, e.ib]);
  }
  if (pairs.length === 0) return pairs;
  // Longest increasing subsequence of the b positions, in a order.
  const tails: number[] = [];
  const prev = new Int32Array(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    const x = pairs[k]![1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pairs[tails[mid]!]![1] < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[k] = tails[lo - 1]!;
    tails[lo] = k;
  }
  const chain: Array<[number, number]> = [];
  for (let k = tails[tails.length - 1]!; k >= 0; k = prev[k]!) chain.push(pairs[k]!);
  return chain.reverse();
}

/** Lines added and removed between two texts. */
export function lineChangeCounts(a: string, b: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const r of diffLineArrays(splitLines(a), splitLines(b))) {
    if (r.op === "+") additions += r.count;
    else if (r.op === "-") deletions += r.count;
  }
  return { additions, deletions };
}

/**
 * The hunks of a unified diff with `context` lines around each change, as jsdiff's
 * `structuredPatch` gives them (lines prefixed " ", "-", "+", line breaks dropped, a
 * "\ No newline at end of file" after a last line without one).
 */
export function lineHunks(a: string, b: string, context: number): StructuredPatchHunk[] {
  const la = splitLines(a);
  const lb = splitLines(b);
  const runs = diffLineArrays(la, lb);
  const hunks: StructuredPatchHunk[] = [];
  let ia = 0;
  let ib = 0;
  let cur: StructuredPatchHunk | undefined;
  const take = (op: Run["op"], from: readonly string[], start: number, n: number, into: string[]) => {
    for (let k = start; k < start + n; k++) into.push(op + from[k]!);
  };
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r]!;
    if (run.op !== " ") {
      if (!cur) {
        const before = r > 0 ? Math.min(context, runs[r - 1]!.count) : 0;
        cur = { oldStart: ia + 1 - before, oldLines: 0, newStart: ib + 1 - before, newLines: 0, lines: [] };
        take(" ", la, ia - before, before, cur.lines);
      }
      if (run.op === "-") {
        take("-", la, ia, run.count, cur.lines);
        ia += run.count;
      } else {
        take("+", lb, ib, run.count, cur.lines);
        ib += run.count;
      }
      continue;
    }
    if (cur) {
      if (run.count <= context * 2 && r < runs.length - 1) take(" ", la, ia, run.count, cur.lines);
      else {
        const n = Math.min(run.count, context);
        take(" ", la, ia, n, cur.lines);
        cur.oldLines = ia + n - cur.oldStart + 1;
        cur.newLines = ib + n - cur.newStart + 1;
        hunks.push(cur);
        cur = undefined;
      }
    }
    ia += run.count;
    ib += run.count;
  }
  if (cur) {
    cur.oldLines = ia - cur.oldStart + 1;
    cur.newLines = ib - cur.newStart + 1;
    hunks.push(cur);
  }
  for (const h of hunks) {
    const lines: string[] = [];
    for (const l of h.lines) {
      if (l.endsWith("\n")) lines.push(l.slice(0, -1));
      else lines.push(l, "\\ No newline at end of file");
    }
    h.lines = lines;
  }
  return hunks;
}

/** A unified diff of two files, the same text as jsdiff's `createTwoFilesPatch`. */
export function twoFilesPatch(
  oldName: string,
  newName: string,
  a: string,
  b: string,
  context: number,
): string {
  return formatPatch({
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: "",
    newHeader: "",
    hunks: lineHunks(a, b, context),
  });
}
