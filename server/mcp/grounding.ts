/**
 * Grounding (docs/mcp.md): with a search connection, the claims stage searches each claim
 * with the connection's `search_tool` ({query: <claim>}) and labels it with the first
 * sources found. With the `resolve_sources` setting on, each source's redirects are
 * followed by the safe fetcher (public addresses only, like external targets) and the source
 * carries the chain and the date it was read.
 *
 * A search tool may answer with `structuredContent.results` (`[{url, title, snippet}]`), with
 * text that is such JSON (an object with `results`, or the array itself), or with
 * `resource_link` items. A failed search gives no sources (it is logged); the review goes on.
 */
import pLimit from "p-limit";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ClaimSource, Grounding } from "../../core/review/types.js";
import type { Clock, Logger } from "../deps.js";
import { fetchTarget, TargetFetchError, type FetchTargetOptions } from "../net/fetch-target.js";
import { McpCallError, textOf } from "./client.js";
import type { McpUse } from "./connections.js";
import type { McpSessions } from "./targets.js";

/** Sources kept per claim. */
export const MAX_SOURCES = 3;

interface Hit {
  url: string;
  title?: string;
  snippet?: string;
}

function hitOf(v: unknown): Hit | undefined {
  if (!v || typeof v !== "object") return undefined;
  const o = v as Record<string, unknown>;
  const url = [o.url, o.link, o.uri].find((x): x is string => typeof x === "string");
  if (!url || !/^https?:\/\//i.test(url)) return undefined;
  const str = (...keys: string[]) => keys.map((k) => o[k]).find((x): x is string => typeof x === "string");
  const title = str("title", "name");
  const snippet = str("snippet", "description", "content", "text");
  return { url, ...(title ? { title } : {}), ...(snippet ? { snippet } : {}) };
}

function listOf(v: unknown): unknown[] | undefined {
  const list: unknown = Array.isArray(v) ? v : (v as { results?: unknown } | null | undefined)?.results;
  return Array.isArray(list) ? (list as unknown[]) : undefined;
}

/** The hits of a search tool's answer, in its order. */
export function searchHits(result: CallToolResult): Hit[] {
  let list = listOf(result.structuredContent);
  if (!list) {
    try {
      list = listOf(JSON.parse(textOf(result)));
    } catch {
      list = undefined;
    }
  }
  list ??= result.content.filter((c) => c.type === "resource_link");
  return list.map(hitOf).filter((h): h is Hit => h !== undefined);
}

export interface GroundingOptions {
  use: McpUse;
  sessions: McpSessions;
  resolveSources: boolean;
  clock: Clock;
  logger: Logger;
  /** Options of the fetcher that follows redirects. */
  fetch?: FetchTargetOptions;
  signal?: AbortSignal;
}

export function mcpGrounding(opts: GroundingOptions): Grounding {
  const limit = pLimit(4);
  const resolve = async (hit: Hit): Promise<ClaimSource> => {
    const source: ClaimSource = {
      text: hit.snippet ?? hit.title ?? hit.url,
      found: false,
      url: hit.url,
      ...(hit.title ? { title: hit.title } : {}),
    };
    if (!opts.resolveSources) return source;
    try {
      const read = await fetchTarget(hit.url, { ...opts.fetch, body: false, signal: opts.signal });
      return { ...source, redirect_chain: read.redirects, retrieved_at: opts.clock.now().toISOString() };
    } catch (err) {
      if (!(err instanceof TargetFetchError)) throw err;
      return { ...source, redirect_chain: [], resolve_error: `${err.reason}: ${err.message}` };
    }
  };
  return {
    sources: (claim) =>
      limit(async () => {
        let hits: Hit[];
        try {
          const session = await opts.sessions.get(opts.use);
          hits = searchHits(await session.call(opts.use.searchTool, { query: claim })).slice(0, MAX_SOURCES);
        } catch (err) {
          if (!(err instanceof McpCallError)) throw err;
          opts.logger.warn("grounding search failed", {
            connection_id: opts.use.endpoint.id,
            error: err.message,
          });
          return [];
        }
        return Promise.all(hits.map(resolve));
      }),
  };
}
