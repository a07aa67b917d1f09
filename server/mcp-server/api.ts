/**
 * How the MCP tools reach the service: through its own HTTP API, never around it, so that
 * permissions, validation, visibility and errors are exactly what any other client gets.
 * In the service (`/mcp`) and in `spec-review mcp <folder>` that is the Hono app's `fetch`,
 * in process; with `spec-review mcp --url` it is the network.
 */
import { API_PREFIX } from "../version.js";

/** A problem+json answer of the API (contract section 7). */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  [key: string]: unknown;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; problem: Problem };

/** Sends one request to the API: `path` is relative to /api/v1 (`/bundles`). */
export type ApiFetch = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * The app's own `fetch`, with the caller's `Authorization` passed on unchanged (hosted
 * mode's API token, or local mode's `--allow-remote` token). The request names
 * `localhost`, which the host guard always answers: it never leaves the process.
 */
export function inProcessApi(
  fetchApp: (req: Request) => Response | Promise<Response>,
  authorization?: string,
): ApiFetch {
  return async (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (authorization !== undefined) headers.set("authorization", authorization);
    return fetchApp(new Request(`http://localhost${API_PREFIX}${path}`, { ...init, headers }));
  };
}

/** A running service at `baseUrl` (`https://specs.example.com`, with or without /api/v1), with an API token. */
export function remoteApi(baseUrl: string, token?: string): ApiFetch {
  const base = baseUrl.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    return fetch(`${base}${API_PREFIX}${path}`, { ...init, headers });
  };
}

/** The problem a failed answer carries; a body that is not problem+json still becomes one. */
async function problemOf(res: Response): Promise<Problem> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (typeof body.code === "string" && typeof body.title === "string")
      return { ...body, title: body.title, code: body.code, status: res.status };
  } catch {
    // not JSON: described below
  }
  return {
    title: res.statusText || "Request failed",
    status: res.status,
    code: "http_" + String(res.status),
    detail: text.slice(0, 500),
  };
}

/** Calls the API and reads its JSON answer (or its problem). */
export async function callApi<T>(
  api: ApiFetch,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResult<T>> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  let res: Response;
  try {
    res = await api(path, init);
  } catch (err) {
    // The network client throws when the service is unreachable, the in-process one when it did not start.
    return {
      ok: false,
      problem: {
        title: "Service unavailable",
        status: 0,
        code: "unavailable",
        detail: err instanceof Error ? err.message : String(err),
      },
    };
  }
  if (!res.ok) return { ok: false, problem: await problemOf(res) };
  if (res.status === 204) return { ok: true, status: res.status, data: undefined as T };
  return { ok: true, status: res.status, data: (await res.json()) as T };
}

/** Reads raw bytes (a file's content), or the problem. */
export async function fetchBytes(
  api: ApiFetch,
  path: string,
): Promise<{ ok: true; bytes: Uint8Array; type: string } | { ok: false; problem: Problem }> {
  let res: Response;
  try {
    res = await api(path, { method: "GET" });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, problem: { title: "Service unavailable", status: 0, code: "unavailable", detail } };
  }
  if (!res.ok) return { ok: false, problem: await problemOf(res) };
  return {
    ok: true,
    bytes: new Uint8Array(await res.arrayBuffer()),
    type: res.headers.get("content-type") ?? "application/octet-stream",
  };
}

/** A path segment or query value, escaped. */
export const seg = encodeURIComponent;
