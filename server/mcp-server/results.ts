/**
 * Tool results. A failed API call becomes an MCP tool error (`isError`) that carries the
 * API's problem as is (title, detail, code, status), so an agent reads the same reason a
 * person would, and an operation that is not built yet says so (501 `not_implemented`)
 * instead of pretending to work.
 */
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiResult, Problem } from "./api.js";

/** An id in the path of an API operation: a UUID, checked before it is put in a URL. */
export const Id = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a UUID");

/** The one line an agent reads first, then the problem itself. */
export function problemText(problem: Problem): string {
  const head = `${problem.title}${problem.detail ? `: ${problem.detail}` : ""}`;
  return `${head} (HTTP ${problem.status}, code ${problem.code})`;
}

export function toolError(problem: Problem): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: problemText(problem) }],
    structuredContent: { problem },
  };
}

/** A JSON answer: as text (what every client shows) and as structured content. */
export function toolJson(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data };
}

/** The tool's answer for an API result: its data shaped by `view`, or the problem. */
export function answer<T>(result: ApiResult<T>, view: (data: T) => Record<string, unknown>): CallToolResult {
  return result.ok ? toolJson(view(result.data)) : toolError(result.problem);
}
