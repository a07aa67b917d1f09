/**
 * Verification: starting a run of a repo at a commit (or a folder, in local mode) against
 * the bundle's trace IDs, and reading its outcome. Paths and bodies are the contract's
 * (4.1, 4.2; server/schemas/verifications.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { VerificationRequestSchema, VerificationRunSchema } from "../schemas/verifications.js";
import { callApi, seg, type ApiFetch } from "./api.js";
import { Id, answer, toolError, toolJson } from "./results.js";

type Run = z.infer<typeof VerificationRunSchema>;
type RunRequest = z.infer<typeof VerificationRequestSchema>;

/** The longest a get_verification call waits for a run to end. */
export const MAX_WAIT_SECONDS = 120;
const POLL_MS = 500;

const Target = z.object({
  kind: z.enum(["code", "test"]).describe("`test` is a citation, never a pass: the service runs no tests"),
  path: z.string().min(1).describe("file relative to the repo root (or the folder)"),
  quote: z.string().min(1).describe("verbatim text of the file; must appear in it exactly once"),
  line: z.number().int().min(1).optional().describe("the line where the quote is"),
});

const Claim = z.object({
  trace_id: z.string().min(1).describe("a trace ID of the bundle, e.g. REQ-12"),
  targets: z.array(Target).describe("where it is built; replaces what the scan found for this ID"),
});

export function registerVerifyTools(
  server: McpServer,
  api: ApiFetch,
  opts: { sleep?: (ms: number) => Promise<unknown> } = {},
): void {
  const wait = opts.sleep ?? ((ms: number) => sleep(ms));

  server.registerTool(
    "start_verification",
    {
      title: "Verify a build",
      description:
        "Queue a verification of a build against the doc's trace IDs: a repo URL (repo, branch, file, commit or pull request) or owner/name as target, or repo + sha; in local mode also an absolute folder (path). With none, the bundle's implemented-by link is read. Claims say where an ID is built (a quote that must appear in its file exactly once). Answers the queued run; read its outcome with get_verification.",
      inputSchema: {
        doc_id: Id.describe("the doc's id"),
        target: z
          .string()
          .min(1)
          .optional()
          .describe("a repo URL or owner/name (local mode: an absolute folder)"),
        repo: z.string().min(1).optional().describe("owner/name"),
        sha: z.string().min(1).optional().describe("the commit to read"),
        path: z.string().min(1).optional().describe("a folder on disk (local mode only)"),
        handoff_id: Id.optional().describe("the handoff you built from"),
        claims: z.array(Claim).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    async ({ doc_id, claims, ...where }) => {
      const body: RunRequest = {
        ...Object.fromEntries(Object.entries(where).filter(([, v]) => v !== undefined)),
        ...(claims !== undefined ? { claims } : {}),
      };
      return answer(
        await callApi<Run>(api, "POST", `/docs/${seg(doc_id)}/verifications`, body),
        (run) => run,
      );
    },
  );

  server.registerTool(
    "get_verification",
    {
      title: "Read a verification",
      description:
        "A verification run: status (queued, done, failed), its own verdict (e.g. verified), the outcome of each trace ID (implemented, missing, waived) with its level and targets, the IDs outside the verify prefixes, and the limits the scan hit. With wait_seconds, waits until the run is done or failed (or the time is up).",
      inputSchema: {
        run_id: Id.describe("the run's id (from start_verification)"),
        wait_seconds: z
          .number()
          .min(0)
          .max(MAX_WAIT_SECONDS)
          .optional()
          .describe(`wait up to this long for the run to end (at most ${MAX_WAIT_SECONDS})`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ run_id, wait_seconds }, extra) => {
      const until = Date.now() + (wait_seconds ?? 0) * 1000;
      for (;;) {
        const result = await callApi<Run>(api, "GET", `/verifications/${seg(run_id)}`);
        if (!result.ok) return toolError(result.problem);
        if (result.data.status !== "queued" || Date.now() >= until || extra.signal.aborted)
          return toolJson(result.data);
        await wait(POLL_MS);
      }
    },
  );

  server.registerTool(
    "list_verifications",
    {
      title: "List a doc's verifications",
      description: "Verification runs of a doc's bundle, newest first.",
      inputSchema: { doc_id: Id.describe("the doc's id") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ doc_id }) =>
      answer(await callApi<{ items: Run[] }>(api, "GET", `/docs/${seg(doc_id)}/verifications`), (list) => ({
        verifications: list.items,
      })),
  );
}
