/** The review worker of a service graph: claims queued full runs and runs them with the graph's ReviewService. */
import type { Deps } from "../deps.js";
import { ReviewWorker, type WorkerOptions } from "../jobs/worker.js";

export function createReviewWorker(deps: Deps, opts: WorkerOptions = {}): ReviewWorker {
  const { review } = deps;
  return new ReviewWorker(
    deps.db,
    deps.bus,
    deps.clock,
    deps.logger,
    (run, signal, events) => review.execute(run, signal, events),
    { ...opts, sweep: opts.sweep ?? (() => review.purgeExpired().then(() => undefined)) },
  );
}
