/**
 * The few calls the language server makes to a spec-review service (docs/editors.md),
 * over its HTTP API (`/api/v1`, server/openapi): which doc of the service an open file
 * is (`GET /bundles`, paged), and the bytes of its current version
 * (`GET /docs/{docId}/files/content`), to tell whether the buffer is what the service
 * holds before a waiver is asked for there.
 */
import type { Settings } from "./workspace.js";

export interface ServiceDoc {
  docId: string;
  slug: string;
  path: string;
  title: string;
  verdict?: { result: string; kind?: string; must: number; should: number; info: number };
}

interface BundleList {
  items: {
    slug: string;
    docs: { id: string; slug: string; path: string; title: string; verdict?: ServiceDoc["verdict"] }[];
  }[];
  next_cursor?: string;
}

export class ServiceError extends Error {}

/** A client of the service the settings name; undefined when none is configured. */
export function serviceClient(
  settings: Settings,
  fetchImpl: typeof fetch = fetch,
): ServiceClient | undefined {
  return settings.serviceUrl ? new ServiceClient(settings.serviceUrl, settings.token, fetchImpl) : undefined;
}

export class ServiceClient {
  constructor(
    readonly url: string,
    private readonly token: string | undefined,
    private readonly fetchImpl: typeof fetch,
  ) {}

  private async get(path: string): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.url}/api/v1${path}`, {
        headers: this.token ? { authorization: `Bearer ${this.token}` } : {},
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new ServiceError(`cannot reach ${this.url}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!res.ok)
      throw new ServiceError(
        res.status === 401 || res.status === 403
          ? `${this.url} refused the request (${res.status}): set specReview.token (or SPEC_REVIEW_TOKEN)`
          : `${this.url} answered ${res.status} to GET /api/v1${path.split("?")[0]}`,
      );
    return res;
  }

  /**
   * The service's doc for a bundle slug and doc path as this workspace names them. The
   * service may serve a folder inside the workspace (or the workspace inside the folder
   * it serves), so a slug matches when one path ends with the other; the longest wins.
   */
  async findDoc(slug: string, path: string): Promise<ServiceDoc | undefined> {
    let best: ServiceDoc | undefined;
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const q = new URLSearchParams({ limit: "200" });
      if (cursor) q.set("cursor", cursor);
      const list = (await (await this.get(`/bundles?${q.toString()}`)).json()) as BundleList;
      for (const b of list.items)
        for (const d of b.docs) {
          if (d.path !== path || !slugFits(slug, d.slug)) continue;
          if (best && best.slug.length >= d.slug.length) continue;
          best = {
            docId: d.id,
            slug: d.slug,
            path: d.path,
            title: d.title,
            ...(d.verdict ? { verdict: d.verdict } : {}),
          };
        }
      if (!list.next_cursor) break;
      cursor = list.next_cursor;
    }
    return best;
  }

  /** The text of a file of the doc's current version. */
  async content(docId: string, path: string): Promise<string> {
    const res = await this.get(
      `/docs/${encodeURIComponent(docId)}/files/content?${new URLSearchParams({ path }).toString()}`,
    );
    return await res.text();
  }

  /** The dashboard's page of one finding, where a waiver is asked for. */
  findingPage(docId: string, findingId: string): string {
    return `${this.url}/docs/${encodeURIComponent(docId)}?finding=${encodeURIComponent(findingId)}`;
  }
}

/** Do two slugs name the same folder, one seen from a folder above the other? */
function slugFits(local: string, remote: string): boolean {
  if (local === remote) return true;
  if (remote === ".") return false;
  return local.endsWith(`/${remote}`) || (local === "." ? false : remote.endsWith(`/${local}`));
}
