/**
 * Handoff: taking the build packet of a Build Ready bundle (its files become resources),
 * and reporting back what the build learned. Paths and bodies are the contract's (4.1,
 * 4.2; server/schemas/handoffs.ts).
 */
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { HandoffReportBodySchema, HandoffReportSchema, HandoffSchema } from "../schemas/handoffs.js";
import { callApi, seg, type ApiFetch } from "./api.js";
import { manifestOf, type BuildPacket, type PacketCache } from "./packets.js";
import { Id, answer, toolError } from "./results.js";

type Handoff = z.infer<typeof HandoffSchema>;
type ReportBody = z.infer<typeof HandoffReportBodySchema>;
type Report = z.infer<typeof HandoffReportSchema>;

export interface HandoffToolOptions {
  /** Where the packets taken in this session are kept as resources. */
  packets: PacketCache;
  /** Tell the client the resource list changed (only where a session outlives the request). */
  onPacket?: () => void;
}

function packetResult(packet: BuildPacket, opts: HandoffToolOptions): CallToolResult {
  const resources = opts.packets.add(packet);
  opts.onPacket?.();
  const manifest = manifestOf(packet);
  return {
    content: [
      {
        type: "text",
        text:
          `Handoff ${packet.handoff_id} of ${packet.slug}: read the prompt first (${String(manifest.prompt)}), ` +
          `then the main doc ${packet.main_path}. Every file of the packet follows as a resource.\n\n` +
          JSON.stringify(manifest, null, 2),
      },
      ...resources.map((r) => {
        const { name: _name, ...resource } = r;
        return { type: "resource" as const, resource };
      }),
    ],
    structuredContent: manifest,
  };
}

export function registerHandoffTools(server: McpServer, api: ApiFetch, opts: HandoffToolOptions): void {
  server.registerTool(
    "take_handoff",
    {
      title: "Take the build packet",
      description:
        "Take the build packet of a Build Ready doc and record the handoff: the re-entry prompt (read it first), the bundle's files, the main doc of each linked bundle under links/, the trace IDs with the line defining each, the build questions with their agreed answers, and the external targets. Every file comes as an MCP resource (spec-review://handoffs/<id>/…). Refused unless the verdict is Build Ready and current, or acknowledged is true.",
      inputSchema: {
        doc_id: Id.describe("the doc's id"),
        label: z
          .string()
          .max(200)
          .optional()
          .describe("what you call this work: a repo, a branch or a ticket"),
        acknowledged: z
          .boolean()
          .optional()
          .describe("take it although the verdict is not Build Ready or is stale (the handoff records that)"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ doc_id, label, acknowledged }) => {
      const body = {
        ...(label !== undefined ? { label } : {}),
        ...(acknowledged !== undefined ? { acknowledged } : {}),
      };
      const result = await callApi<BuildPacket>(api, "POST", `/docs/${seg(doc_id)}/handoff`, body);
      return result.ok ? packetResult(result.data, opts) : toolError(result.problem);
    },
  );

  server.registerTool(
    "list_handoffs",
    {
      title: "List a doc's handoffs",
      description:
        "The handoffs taken of a doc's bundle, newest first, with the version and verdict each was taken at.",
      inputSchema: { doc_id: Id.describe("the doc's id") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ doc_id }) =>
      answer(await callApi<{ items: Handoff[] }>(api, "GET", `/docs/${seg(doc_id)}/handoff`), (list) => ({
        handoffs: list.items,
      })),
  );

  server.registerTool(
    "report_handoff",
    {
      title: "Report back on a handoff",
      description:
        "Tell the spec's authors what the build learned: result `built`, `partial` or `blocked`, and notes (questions for the spec, what was unclear or wrong). A `blocked` report opens a blocking thread on the doc and reaches the author's inbox.",
      inputSchema: {
        handoff_id: Id.describe("the handoff_id of the packet you built from"),
        result: z.enum(["built", "partial", "blocked"]),
        notes: z.string().min(1).describe("what the build learned about the doc, in markdown"),
        section: z.array(z.string()).optional().describe("heading path of the section the report is about"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ handoff_id, result, notes, section }) => {
      const body: ReportBody = {
        result,
        body: notes,
        ...(section !== undefined ? { anchor: { heading_path: section } } : {}),
      };
      return answer(
        await callApi<Report>(api, "POST", `/handoffs/${seg(handoff_id)}/report`, body),
        (report) => report,
      );
    },
  );
}
