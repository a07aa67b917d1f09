/**
 * The rendered main doc as blocks with their source byte ranges (POST /render puts
 * data-source-start/-end on each block), and which finding or thread belongs beside which
 * block: the block whose range holds the anchor's start byte.
 */
import type { Schemas } from "../api/client";

export interface Block {
  /** The block's element, parsed once; the page moves it into place rather than parsing its HTML again. */
  node: Element;
  start: number;
  end: number;
  headingPath: string[];
}

export function blocksOf(html: string): Block[] {
  const body = new DOMParser().parseFromString(html, "text/html").body;
  const out: Block[] = [];
  const path: string[] = [];
  for (const el of Array.from(body.children)) {
    const level = /^H([1-6])$/.exec(el.tagName)?.[1];
    if (level) {
      path.length = Math.min(path.length, Number(level) - 1);
      path[Number(level) - 1] = el.textContent?.trim() ?? "";
    }
    const start = Number(el.getAttribute("data-source-start"));
    const end = Number(el.getAttribute("data-source-end"));
    out.push({
      node: el,
      start: Number.isFinite(start) ? start : -1,
      end: Number.isFinite(end) ? end : -1,
      headingPath: path.filter((p) => p !== undefined),
    });
  }
  return out;
}

/** The index of the block holding byte `at`, by binary search over blocks in source order. */
export function blockAt(blocks: Block[], at: number): number {
  let lo = 0;
  let hi = blocks.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = blocks[mid]!;
    if (b.start < 0 || b.start <= at) {
      if (b.start >= 0) found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export type Note =
  { kind: "finding"; finding: Schemas["Finding"] } | { kind: "thread"; thread: Schemas["Thread"] };

/** Notes per block index; those with no place (no anchor, or detached) under -1. */
export function placeNotes(blocks: Block[], notes: Note[]): Map<number, Note[]> {
  const placed = new Map<number, Note[]>();
  for (const n of notes) {
    const anchor =
      n.kind === "finding"
        ? n.finding.anchor
        : n.thread.anchor_kind === "text"
          ? (n.thread.anchor as Schemas["Anchor"])
          : undefined;
    const at = anchor && !anchor.detached ? blockAt(blocks, anchor.start) : -1;
    const list = placed.get(at) ?? [];
    list.push(n);
    placed.set(at, list);
  }
  return placed;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A text anchor for a selected quote inside one block: its byte offsets in the source (the
 * quote as written in the block's markdown, else the whole block) and the text around it.
 */
export function anchorFor(source: Uint8Array, block: Block, quote: string, file: string): Schemas["Anchor"] {
  const text = decoder.decode(source.subarray(block.start, block.end));
  const at = text.indexOf(quote);
  const startChar = at >= 0 ? at : 0;
  const endChar = at >= 0 ? at + quote.length : text.length;
  const start = block.start + encoder.encode(text.slice(0, startChar)).length;
  const end = block.start + encoder.encode(text.slice(0, endChar)).length;
  return {
    file,
    heading_path: block.headingPath,
    quote: at >= 0 ? quote : text,
    prefix: text.slice(Math.max(0, startChar - 32), startChar),
    suffix: text.slice(endChar, endChar + 32),
    start,
    end,
  };
}
