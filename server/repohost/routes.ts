/** The handlers of the repohost operations (admin token, sources), on the graph's RepohostSources. */
import type { Context } from "hono";
import { deps, type Env } from "../http.js";
import { ApiError } from "../errors.js";
import type { RepohostSources } from "./sources.js";

/** The repohost service; local mode has none (a folder on disk is its only source). */
export function repohostOf(c: Context<Env>): RepohostSources {
  const r = deps(c).repohost;
  if (r) return r;
  throw new ApiError(
    "hosted_only",
    "repohost sources are read in hosted mode (`spec-review serve --hosted` or `spec-review app`); local mode serves one folder",
  );
}
