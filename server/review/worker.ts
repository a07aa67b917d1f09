/** The review worker of an app: claims queued full runs and runs them with the ReviewService. */
import type { Deps } from "../deps.js";
import { busFor } from "../jobs/bus.js";
import { ReviewWorker, type WorkerOptions } from "../jobs/worker.js";
import { ReviewService } from "./service.js";

export function createReviewWorker(deps: Deps, opts: WorkerOptions = {}): ReviewWorker {
  const service = new ReviewService(deps);
  return new ReviewWorker(
    deps.db,
    busFor(deps.db),
    deps.clock,
    deps.logger,
    (run, signal, events) => service.execute(run, signal, events),
    { ...opts, sweep: opts.sweep ?? (() => service.purgeExpired().then(() => undefined)) },
  );
}
