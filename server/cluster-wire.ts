/**
 * What each cache of a service graph tells the other instances, and does when they tell
 * it something (server/cluster.ts carries the notices):
 *
 *   bundle list (server/bundle-index.ts)  store and run events out; `invalidate` in;
 *                                         a read first syncs with the listening connection
 *   lint carry (server/runs.ts)           a full review finished elsewhere
 *   sessions (server/auth/sessions.ts)    sign-out, removal, revoked tokens
 *   profiles (server/profiles.ts)         created, saved, rolled back, deleted
 *   settings (server/settings.ts)          written
 *   pending decisions                      a doc's waivers or threads changed
 *     (server/waivers/pending.ts)
 *   run events and the queue              server/jobs/bus.ts (ClusterBus)
 *
 * Remote notices never re-emit local events: a version made elsewhere must not be
 * linted again here, and nothing bounces back and forth.
 */
import type { MiddlewareHandler } from "hono";
import type { Cluster } from "./cluster.js";
import type { BundleIndex } from "./bundle-index.js";
import type { RunService } from "./runs.js";
import type { BundleStore } from "./store/types.js";
import type { Sessions } from "./auth/sessions.js";
import type { ProfileRegistry } from "./profiles.js";
import type { Logger } from "./deps.js";
import type { PendingDecisions } from "./waivers/pending.js";
import type { SettingsCache } from "./settings.js";

export interface Caches {
  index: BundleIndex;
  store: BundleStore;
  runs: RunService;
  sessions: Sessions;
  profiles: ProfileRegistry;
  pending: PendingDecisions;
  settings: SettingsCache;
  logger: Logger;
}

/** Connect the graph's caches to the cluster; returns the function that disconnects them. */
export function wireCluster(cluster: Cluster, c: Caches): () => void {
  if (cluster.kind === "local") return () => {};
  const onVersion = ({ bundleId, docId }: { bundleId: string; docId: string }) =>
    cluster.publish({ t: "bundle", id: bundleId, docId, version: true });
  const onChanged = ({ bundleId }: { bundleId: string }) => cluster.publish({ t: "bundle", id: bundleId });
  const onRun = ({ bundleId, docId }: { bundleId: string; docId: string }) =>
    cluster.publish({ t: "bundle", id: bundleId, docId, run: true });
  c.store.events.on("version", onVersion);
  c.store.events.on("changed", onChanged);
  c.runs.events.on("run", onRun);
  c.sessions.onEnded = (ended) => cluster.publish({ t: "session", ...ended });
  c.profiles.onChange = () => cluster.publish({ t: "profiles" });
  c.index.beforeRead = () => cluster.sync();
  c.pending.onTouch = (docId) => cluster.publish({ t: "pending", docId });
  c.settings.onChange = () => cluster.publish({ t: "settings" });

  const reloadProfiles = () =>
    c.profiles
      .reload()
      .catch((err: unknown) => c.logger.error("reloading profiles failed", { error: String(err) }));
  const offNotice = cluster.on((n) => {
    switch (n.t) {
      case "bundle":
        c.index.invalidate(n.id, n.version === true);
        if (n.run && n.docId) c.runs.forgetNoFullRun(n.docId);
        break;
      case "session":
        c.sessions.forget(n);
        break;
      case "profiles":
        void reloadProfiles();
        break;
      case "settings":
        c.settings.forget();
        break;
      case "pending":
        c.pending.touch(n.docId, true);
        break;
    }
  });
  const offResync = cluster.onResync(() => {
    c.index.reloadAll();
    c.sessions.forget({});
    c.pending.reload();
    c.settings.forget();
    void reloadProfiles();
  });
  return () => {
    offNotice();
    offResync();
    c.store.events.off("version", onVersion);
    c.store.events.off("changed", onChanged);
    c.runs.events.off("run", onRun);
    c.sessions.onEnded = undefined;
    c.profiles.onChange = undefined;
    c.pending.onTouch = undefined;
    c.settings.onChange = undefined;
    c.index.beforeRead = undefined;
  };
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A request that may have written answers only once its notices are in Postgres: the
 * client's next request, through whichever instance, then finds every cache told.
 */
export function clusterFlush(cluster: Cluster): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (cluster.kind !== "local" && WRITES.has(c.req.method)) await cluster.flush();
  };
}
