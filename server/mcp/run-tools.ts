/**
 * What a full review run gets from outside the bundle (docs/mcp.md): the texts of its doc's
 * external targets, read once each, and, with a search connection, grounding for its
 * claims. MCP sessions are opened as needed and closed with `close()` when the run ends.
 */
import { parseFrontmatter } from "../../core/markdown/frontmatter.js";
import type { ExternalTarget } from "../../core/review/stages/external.js";
import type { Grounding } from "../../core/review/types.js";
import type { Clock, Logger } from "../deps.js";
import type { FetchTargetOptions } from "../net/fetch-target.js";
import type { McpConnections } from "./connections.js";
import { externalTargets } from "../../core/trace/links.js";
import { mcpGrounding } from "./grounding.js";
import { McpSessions, readTargets } from "./targets.js";

export interface RunTools {
  /** The doc's external targets, each read once (or with the reason it was not). */
  external: ExternalTarget[];
  grounding?: Grounding;
  close(): Promise<void>;
}

export interface RunToolsOptions {
  mcp: McpConnections;
  clock: Clock;
  logger: Logger;
  /** The main doc's text (its frontmatter names the external targets). */
  mainText: string;
  resolveSources: boolean;
  signal?: AbortSignal;
  fetch?: FetchTargetOptions;
}

export async function openRunTools(opts: RunToolsOptions): Promise<RunTools> {
  const uses = await opts.mcp.uses();
  const sessions = new McpSessions({
    timeoutMs: opts.mcp.timeoutMs,
    signal: opts.signal,
    logger: opts.logger,
  });
  try {
    const urls = [...new Set(externalTargets(parseFrontmatter(opts.mainText).data).map((t) => t.url))];
    const external = await readTargets(urls, sessions, {
      uses,
      logger: opts.logger,
      signal: opts.signal,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
    const search = uses.find((u) => u.searchTool);
    const grounding = search
      ? mcpGrounding({
          use: search,
          sessions,
          resolveSources: opts.resolveSources,
          clock: opts.clock,
          logger: opts.logger,
          signal: opts.signal,
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        })
      : undefined;
    return { external, ...(grounding ? { grounding } : {}), close: () => sessions.close() };
  } catch (err) {
    await sessions.close();
    throw err;
  }
}
