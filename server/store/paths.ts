/**
 * Paths that come from a request: a file inside a bundle, or a file under the
 * served folder. Anything that could reach outside, or that names a file the disk
 * cannot hold, is refused before any I/O.
 */
import { BadPathError } from "../errors.js";

const MAX_PATH = 1024;
/** Most file systems hold at most 255 bytes per name (NAME_MAX). */
const MAX_SEGMENT_BYTES = 255;

/**
 * Control characters (C0, DEL, C1) and the bidirectional formatting characters that
 * make a name read differently from what it is (LRM, RLM, ALM, embeddings, overrides
 * and isolates: U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069).
 */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

const encoder = new TextEncoder();

/**
 * Checks a relative posix path and answers it in Unicode NFC, so names that differ only
 * in normalization are one file. Refuses empty paths, NUL and other control characters,
 * bidirectional formatting characters, backslashes, absolute paths, `.` and `..`
 * segments, hidden segments (`.git`, `.spec-review`, …), trailing slashes and names
 * longer than 255 bytes.
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
  const m = FORBIDDEN.exec(input);
  if (m) {
    const code = `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    fail(
      /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(m[0])
        ? `contains the bidirectional formatting character ${code}, which makes a name read differently from what it is`
        : `contains a control character (${code})`,
    );
  }
  const path = input.normalize("NFC");
  for (const seg of path.split("/")) {
    if (seg === "") fail("has an empty segment (//)");
    if (seg === "..") fail("leads outside the bundle (..)");
    if (seg === ".") fail("has a . segment");
    if (seg.startsWith(".")) fail("names a hidden file or folder, which is not part of a bundle");
    if (encoder.encode(seg).length > MAX_SEGMENT_BYTES)
      fail(`has a name longer than ${MAX_SEGMENT_BYTES} bytes, more than file systems hold`);
  }
  return path;
}

export function joinPath(folder: string, path: string): string {
  return folder === "." ? path : `${folder}/${path}`;
}
