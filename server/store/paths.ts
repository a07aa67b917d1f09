/**
 * Paths that come from a request: a file inside a bundle, or a file under the
 * served folder. Anything that could reach outside is refused before any I/O.
 */
import { BadPathError } from "../errors.js";

const MAX_PATH = 1024;

/**
 * Checks and normalizes a relative posix path. Refuses empty paths, NUL, backslashes,
 * absolute paths, `.` and `..` segments, hidden segments (`.git`, `.spec-review`, …)
 * and trailing slashes.
 */
export function safeRelativePath(input: string, field = "path"): string {
  const fail = (why: string): never => {
    throw new BadPathError(input, `(${field}) ${why}`);
  };
  if (typeof input !== "string" || input.length === 0) fail("is empty");
  if (input.length > MAX_PATH) fail(`is longer than ${MAX_PATH} characters`);
  if (input.includes("\0")) fail("contains a NUL byte");
  if (input.includes("\\")) fail("contains a backslash; use / between folders");
  if (input.startsWith("/") || /^[A-Za-z]:/.test(input))
    fail("is absolute; give a path relative to the bundle");
  if (input.endsWith("/")) fail("ends with /; name a file");
  for (const seg of input.split("/")) {
    if (seg === "") fail("has an empty segment (//)");
    if (seg === "..") fail("leads outside the bundle (..)");
    if (seg === ".") fail("has a . segment");
    if (seg.startsWith(".")) fail("names a hidden file or folder, which is not part of a bundle");
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f]/.test(seg)) fail("contains a control character");
  }
  return input;
}

export function joinPath(folder: string, path: string): string {
  return folder === "." ? path : `${folder}/${path}`;
}
