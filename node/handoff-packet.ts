/**
 * The build packet as files (docs/handoff.md, "The packet as files"): what
 * `spec-review handoff --out DIR` writes and what `POST /docs/{docId}/handoff/zip`
 * answers, the same bytes in both:
 *
 *     HANDOFF.md        the re-entry prompt: the agent reads it first
 *     handoff.json      the manifest: every packet field except file contents
 *     <bundle files>    the spec files at their paths in the bundle
 *     links/<slug>.md   the main doc of each linked bundle
 *
 * A bundle file named like one of the packet's own (HANDOFF.md, handoff.json) keeps its
 * name; the packet's file then gets a `spec-review.` prefix.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { zipSync } from "fflate";

export interface PacketFile {
  path: string;
  content: string;
  encoding: "text" | "base64";
}

/** The packet fields the files carry (server/schemas/handoffs.ts BuildPacket). */
export interface BuildPacket {
  handoff_id: string;
  slug: string;
  main_path: string;
  files: PacketFile[];
  reentry_prompt: string;
}

export const PROMPT_FILE = "HANDOFF.md";
export const MANIFEST_FILE = "handoff.json";

function bytesOf(f: PacketFile): Uint8Array {
  return f.encoding === "base64" ? Buffer.from(f.content, "base64") : Buffer.from(f.content, "utf8");
}

/** Every file of the packet, by path, in the order written. */
export function packetFiles(packet: BuildPacket): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const taken = new Set(packet.files.map((f) => f.path));
  const own = (name: string) => (taken.has(name) ? `spec-review.${name}` : name);
  const promptPath = own(PROMPT_FILE);
  const manifestPath = own(MANIFEST_FILE);
  out.set(promptPath, Buffer.from(packet.reentry_prompt, "utf8"));
  // Every other field of the packet goes in the manifest as it is.
  const { files, reentry_prompt: _prompt, ...rest } = packet as BuildPacket & Record<string, unknown>;
  const manifest = {
    ...rest,
    prompt_path: promptPath,
    files: files.map((f) => ({ path: f.path, encoding: f.encoding, bytes: bytesOf(f).length })),
  };
  out.set(manifestPath, Buffer.from(JSON.stringify(manifest, null, 2) + "\n", "utf8"));
  for (const f of files) out.set(f.path, bytesOf(f));
  return out;
}

/** The packet as a .zip file (fixed timestamps: the same packet gives the same bytes). */
export function zipPacket(packet: BuildPacket): Uint8Array {
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  for (const [path, bytes] of packetFiles(packet))
    entries[path] = [bytes, { mtime: new Date("2000-01-01T00:00:00Z") }];
  return zipSync(entries, { level: 6 });
}

/** Writes the packet's files under `dir` (made when missing); answers the paths written. */
export async function writePacket(dir: string, packet: BuildPacket): Promise<string[]> {
  const root = resolve(dir);
  const written: string[] = [];
  for (const [path, bytes] of packetFiles(packet)) {
    const target = resolve(root, path);
    // Packet paths are bundle paths (checked by the store); refuse anything that would leave `dir`.
    if (!target.startsWith(root + sep)) throw new Error(`packet path ${path} leaves ${dir}`);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
    written.push(join(dir, path));
  }
  return written;
}
