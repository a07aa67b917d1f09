/**
 * A build packet as MCP resources. Each file of the packet, the re-entry prompt and a
 * manifest (the packet without file contents) get a `spec-review://handoffs/<id>/…` URI.
 * The take_handoff tool embeds them all in its result (so a stateless HTTP client has
 * them at once), and the session keeps the last packets it took so that `resources/list`
 * and `resources/read` serve them for the rest of the session (stdio, for one).
 */
import { extname } from "node:path";
import type { z } from "zod";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { BuildPacketSchema } from "../schemas/handoffs.js";

export type BuildPacket = z.infer<typeof BuildPacketSchema>;

export const HANDOFF_SCHEME = "spec-review://handoffs/";

/** One resource: text, or bytes as base64 (`blob`), as MCP's resource contents carry them. */
export type PacketResource = { uri: string; mimeType: string; name: string } & (
  { text: string } | { blob: string }
);

const TEXT_TYPES: Record<string, string> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".html": "text/html",
  ".csv": "text/csv",
  ".svg": "image/svg+xml",
};
const BINARY_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
};

export function mimeTypeOf(path: string, binary: boolean): string {
  const ext = extname(path).toLowerCase();
  return binary ? (BINARY_TYPES[ext] ?? "application/octet-stream") : (TEXT_TYPES[ext] ?? "text/plain");
}

/** A bundle path in a URI: each segment escaped, the slashes kept. */
export function pathInUri(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export function packetUri(handoffId: string, name: string): string {
  return `${HANDOFF_SCHEME}${handoffId}/${name}`;
}

/** The packet without file contents: what the agent reads to find its way around. */
export function manifestOf(packet: BuildPacket): Record<string, unknown> {
  const { files, reentry_prompt: _prompt, ...rest } = packet;
  return {
    ...rest,
    prompt: packetUri(packet.handoff_id, "prompt.md"),
    files: files.map((f) => ({
      path: f.path,
      encoding: f.encoding,
      uri: packetUri(packet.handoff_id, "files/" + pathInUri(f.path)),
    })),
  };
}

/** Every resource of a packet: the prompt first (the agent reads it first), the manifest, then the files. */
export function packetResources(packet: BuildPacket): PacketResource[] {
  const id = packet.handoff_id;
  return [
    {
      uri: packetUri(id, "prompt.md"),
      name: "prompt.md",
      mimeType: "text/markdown",
      text: packet.reentry_prompt,
    },
    {
      uri: packetUri(id, "manifest.json"),
      name: "manifest.json",
      mimeType: "application/json",
      text: JSON.stringify(manifestOf(packet), null, 2),
    },
    ...packet.files.map((f): PacketResource => {
      const base = {
        uri: packetUri(id, "files/" + pathInUri(f.path)),
        name: f.path,
        mimeType: mimeTypeOf(f.path, f.encoding === "base64"),
      };
      return f.encoding === "base64" ? { ...base, blob: f.content } : { ...base, text: f.content };
    }),
  ];
}

/** The packets this session took, newest last; the oldest are dropped past `max`. */
export class PacketCache {
  private readonly packets = new Map<string, PacketResource[]>();
  constructor(private readonly max = 16) {}

  add(packet: BuildPacket): PacketResource[] {
    const resources = packetResources(packet);
    this.packets.delete(packet.handoff_id);
    this.packets.set(packet.handoff_id, resources);
    while (this.packets.size > this.max) this.packets.delete(this.packets.keys().next().value!);
    return resources;
  }

  list(): PacketResource[] {
    return [...this.packets.values()].flat();
  }

  read(uri: string): ReadResourceResult | undefined {
    for (const resources of this.packets.values()) {
      const found = resources.find((r) => r.uri === uri);
      if (found) {
        const { name: _name, ...contents } = found;
        return { contents: [contents] };
      }
    }
    return undefined;
  }
}
