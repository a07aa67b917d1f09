/**
 * The GitHub App's entry: `specReview(deps)` is the Probot application function, a thin
 * wrapper of `appMain(app, deps)` so tests (and `spec-review app`) inject the service
 * graph and the ports. See docs/app.md.
 */
import type { ApplicationFunction } from "probot";
import type { AppDeps } from "./deps.js";
import { appMain } from "./main.js";

export type { AppDeps } from "./deps.js";
export { appMain } from "./main.js";
export { loggingThreadSink, type ThreadSink } from "./threads-port.js";

export default function specReview(deps: AppDeps): ApplicationFunction {
  return (app) => appMain(app, deps);
}
