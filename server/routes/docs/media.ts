/** Media types of bundle files, by extension, with a UTF-8 sniff for the rest. */
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

export function mediaType(path: string, bytes?: Uint8Array): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  const known = ext ? BY_EXT[ext] : undefined;
  if (known) {
    // A "text" file that is not UTF-8 is served as the bytes it is.
    if (known.includes("charset=utf-8") && bytes && asText(bytes) === null) return "application/octet-stream";
    return known;
  }
  if (bytes && asText(bytes) !== null) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

export function isText(path: string, bytes: Uint8Array): boolean {
  return asText(bytes) !== null && !/^image\/(?!svg)/.test(mediaType(path));
}
