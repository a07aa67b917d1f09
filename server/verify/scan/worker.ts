/**
 * A scan worker thread: reads the files of a batch (or takes their bytes from the main
 * thread, for a git source), skips binary files and files over the size limit, finds the
 * trace IDs (match.ts) and, for a folder run, hashes each file for the content digest.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { parentPort } from "node:worker_threads";
import { looksBinary, needlesFor, scanBuffer, type Hit, type Needles } from "./match.js";

export type WorkerRequest =
  | { type: "init"; ids: string[]; maxFileBytes: number; digest: boolean }
  | { type: "paths"; batch: number; root: string; paths: string[] }
  | { type: "blobs"; batch: number; items: Array<{ path: string; bytes: Uint8Array }> };

export interface BatchResult {
  type: "result";
  batch: number;
  hits: Hit[];
  files: number;
  bytes: number;
  binary: number;
  tooLarge: Array<{ path: string; size: number }>;
  unreadable: Array<{ path: string; error: string }>;
  /** `[path, sha256 hex]` per file read (folder runs). */
  digests: Array<[string, string]>;
}

let needles: Needles = needlesFor([]);
let maxFileBytes = 8 * 1024 * 1024;
let digest = false;

function emptyResult(batch: number): BatchResult {
  return {
    type: "result",
    batch,
    hits: [],
    files: 0,
    bytes: 0,
    binary: 0,
    tooLarge: [],
    unreadable: [],
    digests: [],
  };
}

function scanOne(out: BatchResult, path: string, buf: Buffer): void {
  out.files++;
  out.bytes += buf.length;
  if (digest) out.digests.push([path, createHash("sha256").update(buf).digest("hex")]);
  if (looksBinary(buf)) {
    out.binary++;
    return;
  }
  for (const h of scanBuffer(path, buf, needles)) out.hits.push(h);
}

/** Reads a regular file whole, unless it is over the limit (then only its size is known). */
function readFile(abs: string): { size: number; buf?: Buffer } {
  const fd = openSync(abs, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > maxFileBytes) return { size };
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return { size, buf: off === size ? buf : buf.subarray(0, off) };
  } finally {
    closeSync(fd);
  }
}

export function handle(msg: WorkerRequest): BatchResult | undefined {
  if (msg.type === "init") {
    needles = needlesFor(msg.ids);
    maxFileBytes = msg.maxFileBytes;
    digest = msg.digest;
    return undefined;
  }
  const out = emptyResult(msg.batch);
  if (msg.type === "paths") {
    for (const path of msg.paths) {
      try {
        const { size, buf } = readFile(join(msg.root, path));
        if (!buf) {
          out.tooLarge.push({ path, size });
          if (digest) out.digests.push([path, `size:${size}`]);
        } else scanOne(out, path, buf);
      } catch (err) {
        out.unreadable.push({ path, error: (err as NodeJS.ErrnoException).code ?? String(err) });
      }
    }
  } else {
    for (const it of msg.items)
      scanOne(out, it.path, Buffer.from(it.bytes.buffer, it.bytes.byteOffset, it.bytes.byteLength));
  }
  return out;
}

parentPort?.on("message", (msg: WorkerRequest) => {
  const out = handle(msg);
  if (out) parentPort!.postMessage(out);
});
