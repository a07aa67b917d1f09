/**
 * Reading tools: the bundles and their verdicts, one doc, and the findings behind its
 * verdict. Each is one or two GETs of the HTTP API; the answer keeps the API's field
 * names (contract 2.1, 2.4, 2.6) and leaves out what an agent has no use for.
 */
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { BundleSchema, SpecDocSchema } from "../schemas/common.js";
import type { FindingSchema } from "../schemas/runs.js";
import { callApi, seg, type ApiFetch } from "./api.js";
import { Id, answer, toolError, toolJson } from "./results.js";

type Bundle = z.infer<typeof BundleSchema>;
type SpecDoc = z.infer<typeof SpecDocSchema>;
type Finding = z.infer<typeof FindingSchema>;

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** A doc as an agent needs it: where it is, its verdict, and what to do next. */
export function docView(d: SpecDoc): Record<string, unknown> {
  const v = d.verdict;
  return {
    id: d.id,
    title: d.title,
    path: d.path,
    profile_key: d.profile_key,
    version: d.current_version.number,
    ...(d.status !== undefined ? { status: d.status } : {}),
    verdict: v
      ? {
          result: v.result,
          kind: v.kind,
          score: v.score,
          version_number: v.version_number,
          must: v.must,
          should: v.should,
          info: v.info,
          ...(v.blocking_threads !== undefined ? { blocking_threads: v.blocking_threads } : {}),
          ...(v.stale_reason !== undefined ? { stale_reason: v.stale_reason } : {}),
        }
      : null,
    ...(d.run_error !== undefined ? { run_error: d.run_error } : {}),
    ...(d.next_action !== undefined ? { next_action: d.next_action } : {}),
  };
}

function bundleView(b: Bundle): Record<string, unknown> {
  return { id: b.id, slug: b.slug, title: b.title, state: b.state, docs: b.docs.map(docView) };
}

function findingView(f: Finding): Record<string, unknown> {
  return {
    id: f.id,
    check: f.check_slug,
    level: f.level,
    category: f.category,
    message: f.message,
    ...(f.stage !== undefined ? { stage: f.stage } : {}),
    ...(f.anchor ? { file: f.anchor.file, heading_path: f.anchor.heading_path, quote: f.anchor.quote } : {}),
    ...(f.waiver_id !== undefined ? { waiver_id: f.waiver_id } : {}),
    ...(f.has_fix ? { has_fix: true } : {}),
  };
}

export function registerReadTools(server: McpServer, api: ApiFetch): void {
  server.registerTool(
    "list_bundles",
    {
      title: "List bundles and verdicts",
      description:
        "Spec bundles the caller can see, by slug, each with its state (build_ready, not_build_ready, not_reviewed) and its docs' ids, paths and verdicts. Pass next_cursor back as cursor for the next page.",
      inputSchema: {
        cursor: z.string().optional().describe("next_cursor of the previous page"),
        limit: z.number().int().min(1).max(200).optional().describe("bundles per page (default 50)"),
      },
      annotations: READ_ONLY,
    },
    async ({ cursor, limit }) => {
      const q = new URLSearchParams();
      if (cursor !== undefined) q.set("cursor", cursor);
      if (limit !== undefined) q.set("limit", String(limit));
      const query = q.size > 0 ? `?${q.toString()}` : "";
      const result = await callApi<{
        items: Bundle[];
        next_cursor?: string;
        problems: Array<{ path: string; message: string }>;
      }>(api, "GET", `/bundles${query}`);
      return answer(result, (page) => ({
        bundles: page.items.map(bundleView),
        ...(page.next_cursor !== undefined ? { next_cursor: page.next_cursor } : {}),
        ...(page.problems.length > 0 ? { problems: page.problems } : {}),
      }));
    },
  );

  server.registerTool(
    "get_doc",
    {
      title: "Read a spec doc",
      description:
        "One spec doc: its path, profile, current version, review status, verdict (result, score, open MUST/SHOULD/INFO findings, blocking threads) and the next action.",
      inputSchema: { doc_id: Id.describe("the doc's id (from list_bundles)") },
      annotations: READ_ONLY,
    },
    async ({ doc_id }) => answer(await callApi<SpecDoc>(api, "GET", `/docs/${seg(doc_id)}`), docView),
  );

  server.registerTool(
    "get_findings",
    {
      title: "Read a doc's findings",
      description:
        "The findings behind the doc's current verdict, in document order: the latest run's lint findings and, where the verdict counts an earlier full review, that review's AI findings. Each with its check, level, message and the quoted text it is anchored to.",
      inputSchema: {
        doc_id: Id.describe("the doc's id"),
        level: z.enum(["MUST", "SHOULD", "INFO"]).optional().describe("only findings of this level"),
        include_waived: z.boolean().optional().describe("also list waived findings (default: no)"),
      },
      annotations: READ_ONLY,
    },
    async ({ doc_id, level, include_waived }) => {
      const doc = await callApi<SpecDoc>(api, "GET", `/docs/${seg(doc_id)}`);
      if (!doc.ok) return toolError(doc.problem);
      const verdict = doc.data.verdict;
      if (!verdict)
        return toolJson({ verdict: null, findings: [], note: "the doc has no completed run yet" });
      const findings: Finding[] = [];
      const runIds = [verdict.run_id];
      if (verdict.ai_run_id !== undefined && verdict.ai_run_id !== verdict.run_id)
        runIds.push(verdict.ai_run_id);
      for (const [i, runId] of runIds.entries()) {
        const page = await callApi<{ items: Finding[] }>(api, "GET", `/runs/${seg(runId)}/findings`);
        if (!page.ok) return toolError(page.problem);
        // From the earlier full review, only what the AI found: its lint findings are outdated.
        findings.push(...(i === 0 ? page.data.items : page.data.items.filter((f) => f.stage !== "lint")));
      }
      const shown = findings.filter(
        (f) => (level === undefined || f.level === level) && (include_waived === true || !f.waiver_id),
      );
      return toolJson({ verdict: docView(doc.data).verdict, findings: shown.map(findingView) });
    },
  );
}
