/** The rules of a rename every store keeps (contract: files rename), and the changes it makes. */
import { ApiError } from "../errors.js";
import { isMarkdownPath } from "../../core/bundle/discover.js";
import type { FileChange } from "./types.js";

/**
 * Refuses a rename the head does not allow: `src` missing, `dst` taken, or the spec doc
 * leaving the top of its bundle or markdown. Answers whether the spec doc moves.
 */
export function checkRename(
  files: { has(path: string): boolean },
  docPath: string,
  src: string,
  dst: string,
): { mainMoves: boolean } {
  if (!files.has(src)) throw new ApiError("file_not_found", `${src} is not in the current version`);
  if (files.has(dst) && dst !== src)
    throw new ApiError("file_exists", `${dst} already exists; delete it first`);
  const mainMoves = src === docPath;
  if (mainMoves && (dst.includes("/") || !isMarkdownPath(dst)))
    throw new ApiError(
      "main_doc_required",
      "the spec doc must stay a markdown file at the top of its bundle",
    );
  return { mainMoves };
}

/** The changes of a rename: the bytes under the new name, the old name gone. */
export function renameChanges(src: string, dst: string, bytes: Uint8Array): FileChange[] {
  return [
    { path: dst, bytes },
    { path: src, bytes: null },
  ];
}
