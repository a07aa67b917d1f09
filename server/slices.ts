/**
 * Long loops that must run on the request loop (reading a .zip of thousands of entries,
 * planning an import) work in slices: `pause()` is called between steps and gives the
 * loop a turn once the current slice has run for `sliceMs`, so other requests (GET /meta)
 * are answered meanwhile. A turn costs a few microseconds; a slice is a few milliseconds.
 */
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
