/** Media types of bundle files, by extension (mime-types for binary kinds not listed here). */
import { lookup } from "mime-types";
import { asText } from "./diff.js";

const BY_EXT: Record<string, string> = {
  md: "text/markdown; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  csv: "text/csv; charset=utf-8",
  html: "text/html; charset=utf-8",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  zip: "application/zip",
};

/**
 * The media type of a file, from its name and whether its bytes are UTF-8 (`utf8`, or
 * the bytes themselves): a "text" file that is not UTF-8 is served as the bytes it is,
 * and a file of unknown kind is text/plain when it is UTF-8.
 */
export function mediaType(path: string, utf8?: boolean | Uint8Array): string {
  const isUtf8 = utf8 instanceof Uint8Array ? asText(utf8) !== null : utf8;
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  const known = ext ? BY_EXT[ext] : undefined;
  if (known) {
    if (known.includes("charset=utf-8") && isUtf8 === false) return "application/octet-stream";
    return known;
  }
  if (isUtf8) return "text/plain; charset=utf-8";
  // Other binary files by their extension (.docx, .mp4, …); mime-types knows them.
  return (ext && isUtf8 === false && lookup(ext)) || "application/octet-stream";
}

/** True when a file is shown as text: UTF-8, and not a raster image. */
export function isText(path: string, utf8: boolean | Uint8Array): boolean {
  const isUtf8 = utf8 instanceof Uint8Array ? asText(utf8) !== null : utf8;
  return isUtf8 && !/^image\/(?!svg)/.test(mediaType(path));
}
