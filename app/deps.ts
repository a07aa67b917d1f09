/** What the App's handlers are given (tests inject their own): the service graph's parts and the ports. */
import type { Profile } from "../core/profile/schema.js";
import type { Db } from "../server/db/index.js";
import type { Metrics } from "../server/metrics.js";
import type { Clock, Logger } from "../server/deps.js";
import type { RepohostSources } from "../server/repohost/sources.js";
import type { BundleStore } from "../server/store/types.js";
import type { WaiverArea } from "../server/waivers/index.js";
import type { FullReviewDeps, PullReviews } from "./pr-review.js";
import type { ThreadSink } from "./threads-port.js";

export interface AppDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  repohost: RepohostSources;
  threads: ThreadSink;
  /** Folder of the built-in profiles. */
  builtinProfilesDir: string;
  /** The check run's name (default "Build Ready"). */
  checkName: string;
  /** Web address of the repo host, for links in the report (https://github.com, or the GHE host). */
  serverUrl: string;
  /** The GitHub API address the App calls (GHE_HOST's, else the public one). */
  apiUrl: string;
  /** The review service's ad-hoc runner (a pull request's full review) and its roles. */
  review: FullReviewDeps["review"];
  /** This month's token budget: a pull request's full review runs only when it holds the estimate. */
  budget: FullReviewDeps["budget"];
  /** The service's public URL (PUBLIC_URL), if set: the check's details link goes to the review's report there. */
  publicUrl?: string;
  /** The full reviews running, one per pull request (a newer push supersedes the older). */
  pullReviews: PullReviews;
  /**
   * The waivers area and the bundle store: a pull request approved on GitHub by a linked
   * login approves the sidecar waivers that name it (app/handlers/pr-approval.ts). Without
   * it, approvals decide nothing.
   */
  waivers?: { store: BundleStore; area: WaiverArea };
  /** The workspace's profiles (the service's): a pull request's check takes them between the built-ins and the base branch's. */
  profiles?: { list(): Profile[] };
  /** Deliveries redelivered, reconciliation passes (server/metrics.ts). */
  metrics?: Metrics;
  /**
   * How a delivery's handler run is recorded (app/deliveries.ts): this process's id, whether
   * it is the only process on the database (the embedded one), and when an unfinished run
   * counts as killed.
   */
  deliveries?: { worker: string; exclusive: boolean; staleMs: number };
  /** The App's slug, how people address it on a pull request (`@<slug>`); default: read from GitHub, else `spec-review`. */
  appSlug?: string;
}
