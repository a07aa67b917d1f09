/**
 * Long loops that must run on the request loop (reading a .zip of thousands of entries,
 * planning an import) work in slices: `pause()` is called between steps and gives the
 * loop a turn once the current slice has run for `sliceMs`, so other requests (GET /meta)
 * are answered meanwhile. A turn costs a few microseconds; a slice is a few milliseconds.
 */
import { isUtf8 } from "node:buffer";
import { performance } from "node:perf_hooks";
import { setImmediate as turn } from "node:timers/promises";
import type { Pause } from "../core/bundle/import-plan.js";

export type { Pause };

/** Default length of a slice: well under the 100 ms a waiting request may take. */
export const SLICE_MS = 10;

/**
 * A pause for one loop (`await pause()` between steps): a promise that waits for the
 * loop's next turn when the slice is used up, else undefined (a microtask, no wait).
 */
export function slices(sliceMs = SLICE_MS): Pause {
  let start = performance.now();
  return () => {
    if (performance.now() - start < sliceMs) return undefined;
    return turn().then(() => {
      start = performance.now();
    });
  };
}

/** Bytes decoded between pauses by `decodeInSlices` (a few milliseconds of work). */
const DECODE_SLICE = 1024 * 1024;

/**
 * The text of UTF-8 bytes as `decodeText` (core/lint/engine.ts) gives it (a BOM kept,
 * invalid sequences replaced and `invalid` set), decoded a megabyte at a time with
 * `pause()` between: a 10 MB doc in one go held the request loop for 50 ms.
 */
export async function decodeInSlices(
  bytes: Uint8Array,
  pause: Pause,
): Promise<{ text: string; invalid: boolean }> {
  const invalid = !isUtf8(bytes);
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += DECODE_SLICE) {
    if (at > 0) await pause();
    const end = Math.min(bytes.length, at + DECODE_SLICE);
    parts.push(decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length }));
  }
  return { text: parts.join(""), invalid };
}
