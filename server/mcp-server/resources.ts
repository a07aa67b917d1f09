/**
 * Resources: the files of the handoff packets taken in this session
 * (`spec-review://handoffs/<handoffId>/prompt.md`, `…/manifest.json`, `…/files/<path>`),
 * and any file of a bundle as it is now (`spec-review://docs/<docId>/files/<path>`), read
 * through `GET /docs/{docId}/files/content` with the caller's permissions.
 */
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { fetchBytes, seg, type ApiFetch } from "./api.js";
import { HANDOFF_SCHEME, mimeTypeOf, type PacketCache } from "./packets.js";
import { problemText } from "./results.js";

/** MCP's code for a resource that does not exist (the spec's -32002). */
const RESOURCE_NOT_FOUND = -32002;

/** A value the URI template matched, decoded; a malformed escape names nothing. */
function decoded(value: string | string[] | undefined): string {
  const v = Array.isArray(value) ? value.join("/") : (value ?? "");
  try {
    return decodeURIComponent(v);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `not a valid escape in ${JSON.stringify(v)}`);
  }
}

/** Text when the service calls it text and the bytes are UTF-8; otherwise base64. */
function asText(type: string, bytes: Uint8Array): string | undefined {
  if (!/^text\/|json|yaml|xml|charset=utf-8/i.test(type)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export function registerResources(server: McpServer, api: ApiFetch, packets: PacketCache): void {
  server.registerResource(
    "handoff-file",
    new ResourceTemplate(`${HANDOFF_SCHEME}{handoffId}/{+name}`, {
      list: () => ({
        resources: packets.list().map((r) => ({ uri: r.uri, name: r.name, mimeType: r.mimeType })),
      }),
    }),
    {
      title: "Handoff packet file",
      description:
        "A file of a build packet taken in this session with take_handoff: prompt.md (read it first), manifest.json, and files/<path>",
    },
    (uri) => {
      const found = packets.read(uri.href);
      if (found) return found;
      throw new McpError(
        RESOURCE_NOT_FOUND,
        `${uri.href} is not a packet taken in this session: call take_handoff (its result holds every file), or read the bundle's files as spec-review://docs/<docId>/files/<path>`,
      );
    },
  );

  server.registerResource(
    "bundle-file",
    new ResourceTemplate("spec-review://docs/{docId}/files/{+path}", { list: undefined }),
    {
      title: "Bundle file",
      description: "A file of a doc's bundle, as the current version holds it",
    },
    async (uri, vars) => {
      const docId = decoded(vars.docId);
      const path = decoded(vars.path);
      const got = await fetchBytes(api, `/docs/${seg(docId)}/files/content?path=${seg(path)}`);
      if (!got.ok)
        throw new McpError(
          got.problem.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams,
          problemText(got.problem),
          { problem: got.problem },
        );
      const text = asText(got.type, got.bytes);
      const mimeType = got.type.split(";")[0]!.trim() || mimeTypeOf(path, text === undefined);
      return {
        contents: [
          text !== undefined
            ? { uri: uri.href, mimeType, text }
            : { uri: uri.href, mimeType, blob: Buffer.from(got.bytes).toString("base64") },
        ],
      };
    },
  );
}
