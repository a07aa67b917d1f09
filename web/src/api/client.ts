/**
 * The dashboard's only way to the server: the typed client over /api/v1 (types generated
 * from the server's OpenAPI document into schema.d.ts by `npm run gen:web-client`).
 * `call` turns an answer into its data, or throws the problem+json as an ApiProblem.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];

export const api = createClient<paths>({ baseUrl: "/api/v1", credentials: "same-origin" });

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
  ) {
    super(problem.detail ?? problem.title ?? `the server answered ${status}`);
  }
  get code(): string {
    return this.problem.code ?? "";
  }
  /** An operation the server routes but has not built yet (501 `not_implemented`). */
  get notAvailable(): boolean {
    return this.status === 501;
  }
}

/** The data of a successful answer; a problem+json (or a network failure) is thrown as an ApiProblem. */
export async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let res: { data?: T; error?: unknown; response: Response };
  try {
    res = await request;
  } catch (err) {
    throw new ApiProblem(0, {
      title: "No answer",
      detail: `the server could not be reached (${String(err)})`,
    });
  }
  if (res.response.ok) return res.data as T;
  const body = res.error;
  const problem: Partial<Problem> =
    body && typeof body === "object" ? body : { title: res.response.statusText };
  throw new ApiProblem(res.response.status, problem);
}
