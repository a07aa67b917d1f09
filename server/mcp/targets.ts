/**
 * Reading the external targets of a doc for one review run (docs/mcp.md): a target whose
 * host an MCP connection lists is read through that connection's `fetch_tool`; any other
 * over a plain HTTP GET by the safe fetcher (server/net/fetch-target.ts), public addresses
 * only. A target that cannot be read comes back with the reason, never as an error.
 *
 * Code targets: a GitHub blob URL is read as its raw file; the commit recorded is the one
 * the URL pins (a 40-hex ref of a GitHub, GitLab or Bitbucket file URL), or the `commit` a
 * fetch tool returns in its structured content.
 */
import pLimit from "p-limit";
import type { ExternalTarget } from "../../core/review/stages/external.js";
import type { Logger } from "../deps.js";
import {
  fetchTarget,
  TargetFetchError,
  DEFAULT_MAX_BYTES,
  type FetchTargetOptions,
} from "../net/fetch-target.js";
import { McpCallError, McpSession, textOf } from "./client.js";
import { hostMatches, normalizeHost, type McpUse } from "./connections.js";

const SHA = /^[0-9a-f]{40}$/i;

/** The commit a code file URL pins, when its ref is a full commit id. */
export function pinnedCommit(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const parts = u.pathname.split("/").filter(Boolean);
  const after = (marker: string) => {
    const i = parts.indexOf(marker);
    return i >= 0 ? parts[i + 1] : undefined;
  };
  const ref =
    u.hostname === "raw.githubusercontent.com"
      ? parts[2]
      : (after("blob") ?? after("raw") ?? (u.hostname === "bitbucket.org" ? after("src") : undefined));
  return ref && SHA.test(ref) ? ref.toLowerCase() : undefined;
}

/** Where a plain GET reads a target: a GitHub file page becomes its raw file. */
export function plainUrl(url: string): string {
  const m = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url.split("#")[0]!);
  return m ? `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}` : url;
}

/** The connection that reads a host: an exact host entry first, then a `*.` entry. */
export function connectionFor(uses: readonly McpUse[], url: string): McpUse | undefined {
  let host: string;
  try {
    host = normalizeHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
  const readers = uses.filter((u) => u.fetchTool && u.hosts.length > 0);
  return (
    readers.find((u) => u.hosts.includes(host)) ??
    readers.find((u) => u.hosts.some((p) => p.startsWith("*.") && hostMatches(p, host)))
  );
}

export interface TargetReaderOptions {
  uses: readonly McpUse[];
  logger: Logger;
  /** Options of the plain fetcher (size and time limits, the address policy). */
  fetch?: FetchTargetOptions;
  signal?: AbortSignal;
}

/** Opens MCP sessions as targets need them and keeps them for the run; `close()` ends them. */
export class McpSessions {
  readonly #open = new Map<string, Promise<McpSession>>();

  constructor(private readonly opts: { timeoutMs?: number; signal?: AbortSignal; logger: Logger }) {}

  get(use: McpUse): Promise<McpSession> {
    let s = this.#open.get(use.endpoint.id);
    if (!s) {
      s = McpSession.open(use.endpoint, { timeoutMs: this.opts.timeoutMs, signal: this.opts.signal });
      this.#open.set(use.endpoint.id, s);
    }
    return s;
  }

  async close(): Promise<void> {
    const sessions = [...this.#open.values()];
    this.#open.clear();
    for (const s of sessions) {
      try {
        await (await s).close();
      } catch (err) {
        if (!(err instanceof McpCallError))
          this.opts.logger.warn("closing an MCP session failed", { error: String(err) });
      }
    }
  }
}

function refusal(err: unknown): string {
  if (err instanceof TargetFetchError) return `${err.reason}: ${err.message}`;
  if (err instanceof McpCallError) return `mcp_${err.failure}: ${err.message}`;
  throw err;
}

/** Read every target once (at most 4 at a time), in the order given. */
export async function readTargets(
  urls: readonly string[],
  sessions: McpSessions,
  opts: TargetReaderOptions,
): Promise<ExternalTarget[]> {
  const limit = pLimit(4);
  const maxBytes = opts.fetch?.maxBytes ?? DEFAULT_MAX_BYTES;
  return Promise.all(
    urls.map((url) =>
      limit(async (): Promise<ExternalTarget> => {
        const pinned = pinnedCommit(url);
        const commit = pinned ? { commit: pinned } : {};
        const use = connectionFor(opts.uses, url);
        try {
          if (use) {
            const session = await sessions.get(use);
            const result = await session.call(use.fetchTool, { url });
            const text = textOf(result);
            if (Buffer.byteLength(text) > maxBytes)
              return {
                url,
                unread: `too_large: the fetch tool returned more than ${maxBytes} bytes`,
                ...commit,
              };
            const said = (result.structuredContent as { commit?: unknown } | undefined)?.commit;
            return { url, text, ...(typeof said === "string" && said ? { commit: said } : commit) };
          }
          const read = await fetchTarget(plainUrl(url), { ...opts.fetch, signal: opts.signal });
          return { url, text: read.text, ...commit };
        } catch (err) {
          if (opts.signal?.aborted) throw err;
          const unread = refusal(err);
          opts.logger.info("external target not read", { url, reason: unread });
          return { url, unread, ...commit };
        }
      }),
    ),
  );
}
