/**
 * The waivers area in one object on the service graph (`deps.waivers`): waivers and
 * acknowledgements, the sidecar, review status and approval, the inbox, next actions and
 * insights. `start` listens for new versions (sidecar sync, status back to review);
 * `stop` stops listening.
 */
import type { Actor } from "../auth/actor.js";
import type { Accounts } from "../auth/accounts.js";
import type { Db } from "../db/index.js";
import type { Clock, Logger } from "../deps.js";
import type { ProfileRegistry } from "../profiles.js";
import type { RunService } from "../runs.js";
import type { Bundle, SpecDoc } from "../schemas/common.js";
import type { BundleStore, VersionEvent } from "../store/types.js";
import { InboxService } from "./inbox.js";
import { nextActions, requestsReview, withNextActions, type NextActionDeps } from "./next-action.js";
import { PendingDecisions } from "./pending.js";
import { noThreads, type ThreadsPort } from "./ports.js";
import { ReviewStatusService } from "./review-status.js";
import { WaiverService } from "./service.js";
import type { WaiverRow } from "./views.js";
import { SidecarSigner } from "./signature.js";

export interface WaiverAreaDeps {
  db: Db;
  store: BundleStore;
  profiles: ProfileRegistry;
  runs: RunService;
  accounts: Accounts;
  clock: Clock;
  logger: Logger;
  mode: "local" | "hosted";
  /** The service's secret key: sidecar signatures are HMACs under a key derived from it. */
  secretKey: Uint8Array;
  /** This is the only instance (no cluster): caches of what only this instance writes are whole. */
  sole?: boolean;
  /** Threads waiting for a decision (the threads area); default: none. */
  threads?: ThreadsPort;
}

export class WaiverArea {
  readonly waivers: WaiverService;
  readonly status: ReviewStatusService;
  readonly inbox: InboxService;
  /** Docs that may have a waiver or thread waiting for a decision (the list's fast path). */
  readonly pending: PendingDecisions;
  /** Wire the threads area here (`area.threads = …`) for `next_action` kind `decide`. */
  threads: ThreadsPort;
  /**
   * Told of the waiver requests a new version's sidecar asked for, after they are made (the
   * GitHub App sets it: the approvals the merged pull request had on GitHub count,
   * app/handlers/pr-approval.ts). A listener that fails is logged; the requests stay.
   */
  onSidecarRequests?: (ev: VersionEvent, requests: readonly WaiverRow[]) => Promise<void>;
  private readonly onVersion = (ev: VersionEvent) => {
    void this.afterVersion(ev).catch((err: unknown) =>
      this.d.logger.error("waivers: handling a new version failed", { doc: ev.docId, error: String(err) }),
    );
  };

  constructor(private readonly d: WaiverAreaDeps) {
    const signer = new SidecarSigner(d.secretKey);
    this.waivers = new WaiverService({ ...d, signer });
    this.status = new ReviewStatusService(d);
    this.inbox = new InboxService(d.db, () => d.clock.now());
    this.threads = d.threads ?? noThreads;
    this.pending = new PendingDecisions(d.db, d.logger);
    this.waivers.onDocChange = (docId) => this.pending.touch(docId);
  }

  start(): void {
    this.d.runs.waivers = this.waivers.sidecar;
    this.d.store.events.on("version", this.onVersion);
  }

  stop(): void {
    this.d.store.events.off("version", this.onVersion);
    if (this.d.runs.waivers === this.waivers.sidecar) this.d.runs.waivers = undefined;
  }

  private async afterVersion(ev: VersionEvent): Promise<void> {
    await this.status.afterVersion(ev, this.waivers.sidecar.messagePrefix);
    let requests;
    try {
      requests = await this.waivers.sidecar.sync(ev);
    } catch (err) {
      // It may have asked for some before it failed.
      this.pending.touch(ev.docId);
      throw err;
    }
    // Waivers the sidecar asked for wait for a decision.
    if (requests.length > 0) this.pending.touch(ev.docId);
    for (const row of requests) await this.waivers.notifySidecarRequest(row);
    if (requests.length > 0 && this.onSidecarRequests)
      await this.onSidecarRequests(ev, requests).catch((err: unknown) =>
        this.d.logger.error("waivers: a listener of sidecar requests failed", {
          doc: ev.docId,
          error: err instanceof Error ? err.message : String(err),
        }),
      );
  }

  private get nextDeps(): NextActionDeps {
    return {
      db: this.d.db,
      runs: this.d.runs,
      sidecar: this.waivers.sidecar,
      threads: this.threads,
      mode: this.d.mode,
      maintainersOf: (key) => this.waivers.maintainersOf(key),
    };
  }

  /**
   * A page of the bundle list with the caller's next actions (kind and sentence); undefined
   * when they are the cached views' own, so the list can answer its cached JSON.
   */
  async personalize(actor: Actor | undefined, items: readonly Bundle[]): Promise<Bundle[] | undefined> {
    const waiting = await this.pending.anyIn(items);
    // Nothing waits for a decision and the caller is asked for no review: the cached views'
    // own next actions (server/views.ts) are the caller's.
    if (!waiting && !requestsReview(this.d.mode, actor)) return undefined;
    const docs = items.flatMap((b) => b.docs);
    const actions = await nextActions(this.nextDeps, actor, docs, false, waiting);
    let changed = false;
    const out = items.map((b) => ({
      ...b,
      docs: b.docs.map((doc) => {
        const next = actions.get(doc.id);
        if (next?.kind === doc.next_action?.kind && next?.sentence === doc.next_action?.sentence) return doc;
        changed = true;
        const { next_action: _old, ...rest } = doc;
        void _old;
        return next ? { ...rest, next_action: next } : rest;
      }),
    }));
    return changed ? out : undefined;
  }

  /** The docs with the caller's next action (`single`: one doc's read, with target ids). */
  withNextActions<T extends SpecDoc>(
    actor: Actor | undefined,
    docs: readonly T[],
    single = false,
  ): Promise<T[]> {
    return withNextActions(this.nextDeps, actor, docs, single);
  }
}
