/**
 * The folders a local-mode service may verify: `SPEC_REVIEW_VERIFY_ROOTS` (folders
 * separated by the platform's path delimiter) when set, else the served folder's parent
 * (code usually sits beside the folder of specs: `~/src/specs` and `~/src/shop`).
 * A hosted service reads no folders.
 */
import { delimiter, dirname, resolve } from "node:path";

export function verifyRoots(
  mode: "local" | "hosted",
  folder: string | undefined,
  env = process.env,
): string[] {
  if (mode !== "local" || folder === undefined) return [];
  const set = env.SPEC_REVIEW_VERIFY_ROOTS?.split(delimiter).filter(Boolean);
  if (set && set.length > 0) return set.map((p) => resolve(p));
  return [dirname(resolve(folder))];
}
