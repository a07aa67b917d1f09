/**
 * The disk writer thread (server/store/disk-writer.ts): a save's file is written whole,
 * with the mtime a stat reads; the file system's refusals come back with their codes (the
 * store turns them into 400s); and after `close` writes still work, on the loop.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { DiskWriter, MAX_BYTES } from "../../../server/store/disk-writer.js";

describe("disk writer", () => {
  const dirs: string[] = [];
  const folder = () => {
    const d = mkdtempSync(join(tmpdir(), "sr-disk-writer-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("writes files whole, in new folders too, answering the mtime a stat reads and leaving no temp file", async () => {
    const w = new DiskWriter();
    const root = folder();
    const small = new TextEncoder().encode("---\ntype: prd\n---\n\n# Ünïcode ✓\r\n");
    const big = new Uint8Array(Buffer.alloc(MAX_BYTES + 10, "0123456789abcdef\n"));
    const [a, b, c] = await Promise.all([
      w.write(join(root, "spec.md"), small),
      w.write(join(root, "deep/er/data.bin"), big),
      w.write(join(root, "spec.md"), small),
    ]);
    expect(readFileSync(join(root, "spec.md"))).toEqual(Buffer.from(small));
    expect(readFileSync(join(root, "deep/er/data.bin"))).toEqual(Buffer.from(big));
    expect(Math.floor(a)).toBeLessThanOrEqual(Math.floor(c));
    expect(Math.floor(c)).toBe(Math.floor(statSync(join(root, "spec.md")).mtimeMs));
    expect(Math.floor(b)).toBe(Math.floor(statSync(join(root, "deep/er/data.bin")).mtimeMs));
    expect(readdirSync(root).filter((n) => n.startsWith(".sr-tmp-"))).toEqual([]);
    await w.close();
  });

  it("answers the file system's refusal with its code and leaves the old file", async () => {
    const w = new DiskWriter();
    const root = folder();
    writeFileSync(join(root, "plain"), "a file, not a folder");
    await expect(w.write(join(root, "plain/spec.md"), new Uint8Array([1]))).rejects.toMatchObject({
      code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/),
    });
    mkdirSync(join(root, "taken.md"));
    await expect(w.write(join(root, "taken.md"), new Uint8Array([1]))).rejects.toMatchObject({
      code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/),
    });
    expect(readFileSync(join(root, "plain"), "utf8")).toBe("a file, not a folder");
    expect(readdirSync(root).filter((n) => n.startsWith(".sr-tmp-"))).toEqual([]);
    await w.close();
  });

  it("a write in flight when the thread dies settles (it never hangs), and later writes go on without it", async () => {
    const w = new DiskWriter();
    const root = folder();
    await w.write(join(root, "a.md"), new Uint8Array([65]));
    const thread = (w as unknown as { worker: Worker }).worker;
    const inFlight = w.write(join(root, "b.md"), new Uint8Array([66]));
    await thread.terminate();
    const outcome = await inFlight.then(
      () => "written",
      (err: Error) => err.message,
    );
    expect(outcome).toMatch(/^(written|the disk writer thread stopped.*)$/);
    await w.write(join(root, "c.md"), new Uint8Array([67]));
    expect(readFileSync(join(root, "c.md"), "utf8")).toBe("C");
    await w.close();
  });

  it("keeps writing after close, on the loop", async () => {
    const w = new DiskWriter();
    const root = folder();
    await w.write(join(root, "a.md"), new Uint8Array([65]));
    await w.close();
    await w.write(join(root, "b.md"), new Uint8Array([66]));
    expect(readFileSync(join(root, "b.md"), "utf8")).toBe("B");
  });
});
