/**
 * Nothing missed while the App was down (docs/app.md, "Nothing missed"). On start and
 * every few minutes one instance at a time (a lease on the one `app_reconcile` row, taken
 * by a conditional upsert) makes a pass:
 *
 * 1. It lists the App's deliveries (`GET /app/hook/deliveries`, newest first, paged by
 *    the `Link` header's cursor) back to the newest one every older one of which it
 *    settled before (`since`, GitHub's clock): usually one call.
 * 2. A delivery of an event the App handles that did not finish here (never received, its
 *    handler failed, or was killed: app/deliveries.ts) is delivered again
 *    (`POST /app/hook/deliveries/{id}/attempts`), each once. Missed pushes of one
 *    repository are one redelivery, the newest, whose handler syncs every source of that
 *    repository (a sync reads from the last commit read to the head, whatever the number
 *    of pushes between); the older ones are settled by it.
 * 3. The safety net, when the deliveries cannot vouch for the time since the last pass
 *    (the first pass, a last pass older than GitHub keeps deliveries, or a redelivery that
 *    did not finish): every source syncs (a conditional read of its branch head: an
 *    unmoved head is one 304), and the open pull requests updated since the last pass that
 *    touch a source's folder and have no Build Ready check on their head get one.
 *
 * A pass's own calls: the listing (one per 100 deliveries), one per redelivery (at most one
 * per changed repository or pull request), and in the safety net one per source, one per
 * repository for its pull requests and one per pull request without a check. What a
 * redelivery or a sync then does costs what the same webhook costs.
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import { appPullChecks, appReconcile, repohostDeliveries, repohostSources } from "../server/db/schema.js";
import type { AppDeps } from "./deps.js";
import { HANDLER_STALE_MS } from "./deliveries.js";
import { changedFiles, checkPullRequest, type PullOctokit } from "./handlers/pull-request.js";

/** What the App handles, by event: the actions (none: every action). The rest needs no redelivery. */
export const HANDLED: Readonly<Record<string, readonly string[] | undefined>> = {
  push: undefined,
  pull_request: ["opened", "synchronize", "reopened"],
  check_run: ["rerequested"],
  check_suite: ["rerequested"],
  pull_request_review: ["submitted"],
  pull_request_review_comment: ["created"],
  issue_comment: ["created"],
};

function handled(event: string, action: string | null | undefined): boolean {
  if (!(event in HANDLED)) return false;
  const actions = HANDLED[event];
  return actions === undefined || (action !== null && action !== undefined && actions.includes(action));
}

/** One row of GET /app/hook/deliveries. */
interface HookDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
}

export interface AppOctokit extends PullOctokit {
  request(
    route: string,
    params?: Record<string, unknown>,
  ): Promise<{ data: unknown; headers: Record<string, string | number | undefined> }>;
}

export type AppAuth = (installationId?: number) => Promise<AppOctokit>;

export interface ReconcileOptions {
  /** Between passes (default 5 minutes). */
  intervalMs?: number;
  /** A pass's lease: another instance may take over after it (default 2 minutes). */
  leaseMs?: number;
  /** How long GitHub keeps deliveries (default 3 days less an hour of margin). */
  retentionMs?: number;
  /** A handler run older than this that did not finish was killed (app/deliveries.ts). */
  staleMs?: number;
}

export interface PassReport {
  /** Deliveries listed (newer than `since`). */
  listed: number;
  /** Calls to list them. */
  pages: number;
  redelivered: string[];
  /** Missed pushes settled by the redelivery of a newer one of their repository. */
  covered: number;
  /** Redelivered before and still not finished: not asked again. */
  gaveUp: string[];
  safetyNet: boolean;
  sourcesSynced: number;
  pullsChecked: number[];
}

const ROW = "github";
/** How long a delivery's record is kept (GitHub keeps deliveries about three days). */
const KEEP_DELIVERIES_MS = 14 * 86_400_000;

function linkNext(link: string | number | undefined): string | undefined {
  if (typeof link !== "string") return undefined;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

export class Reconciler {
  readonly holder = `reconcile-${randomUUID()}`;
  private readonly opts: Required<ReconcileOptions>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly auth: AppAuth,
    private readonly deps: AppDeps,
    opts: ReconcileOptions = {},
  ) {
    this.opts = {
      intervalMs: opts.intervalMs ?? 5 * 60_000,
      leaseMs: opts.leaseMs ?? 2 * 60_000,
      retentionMs: opts.retentionMs ?? 3 * 86_400_000 - 3_600_000,
      staleMs: opts.staleMs ?? HANDLER_STALE_MS,
    };
  }

  /** A pass now, then every `intervalMs`. */
  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.running.then(() =>
        this.pass().catch((err: unknown) =>
          this.deps.logger.error("reconciliation pass failed", {
            error: err instanceof Error ? err.message : String(err),
          }),
        ),
      );
    };
    tick();
    this.timer = setInterval(tick, this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Take the lease; false when another instance holds it. */
  private async lease(now: Date): Promise<typeof appReconcile.$inferSelect | undefined> {
    const until = new Date(now.getTime() + this.opts.leaseMs);
    const r = appReconcile;
    const [row] = await this.deps.db
      .insert(r)
      .values({ id: ROW, holder: this.holder, leaseUntil: until })
      .onConflictDoUpdate({
        target: r.id,
        set: { holder: this.holder, leaseUntil: until },
        setWhere: or(isNull(r.leaseUntil), lt(r.leaseUntil, now), eq(r.holder, this.holder)),
      })
      .returning();
    return row;
  }

  /** One pass; undefined when another instance is making one. */
  async pass(): Promise<PassReport | undefined> {
    const { db, clock, metrics } = this.deps;
    const now = clock.now();
    const state = await this.lease(now);
    if (!state) {
      metrics?.reconcilePasses.inc({ outcome: "skipped" });
      return undefined;
    }
    try {
      const report = await this.run(state, now);
      metrics?.reconcilePasses.inc({ outcome: "done" });
      this.deps.logger.info("reconciliation pass", {
        listed: report.listed,
        redelivered: report.redelivered.length,
        covered: report.covered,
        gave_up: report.gaveUp.length,
        safety_net: report.safetyNet,
        synced: report.sourcesSynced,
        pulls_checked: report.pullsChecked.length,
      });
      return report;
    } catch (err) {
      metrics?.reconcilePasses.inc({ outcome: "failed" });
      throw err;
    } finally {
      await db
        .update(appReconcile)
        .set({ leaseUntil: null })
        .where(and(eq(appReconcile.id, ROW), eq(appReconcile.holder, this.holder)));
    }
  }

  private async listDeliveries(
    since: Date | null,
  ): Promise<{ list: HookDelivery[]; pages: number; reached: boolean }> {
    const gh = await this.auth();
    const list: HookDelivery[] = [];
    let pages = 0;
    let url: string | undefined = "/app/hook/deliveries?per_page=100";
    let reached = false;
    while (url) {
      const res = await gh.request(`GET ${url}`);
      pages++;
      const page = res.data as HookDelivery[];
      for (const d of page) {
        if (since && new Date(d.delivered_at) <= since) reached = true;
        else list.push(d);
      }
      if (reached || page.length === 0) break;
      url = linkNext(res.headers.link);
    }
    return { list, pages, reached };
  }

  private async run(state: typeof appReconcile.$inferSelect, now: Date): Promise<PassReport> {
    const { db } = this.deps;
    const since = state.since;
    const { list, pages, reached } = await this.listDeliveries(since);
    const report: PassReport = {
      listed: list.length,
      pages,
      redelivered: [],
      covered: 0,
      gaveUp: [],
      safetyNet: false,
      sourcesSynced: 0,
      pullsChecked: [],
    };
    // One entry per guid (a redelivery is listed again under the same guid): the newest attempt.
    const byGuid = new Map<string, HookDelivery>();
    for (const d of list) {
      const seen = byGuid.get(d.guid);
      if (!seen || new Date(d.delivered_at) > new Date(seen.delivered_at)) byGuid.set(d.guid, d);
    }
    const ours = [...byGuid.values()].filter((d) => handled(d.event, d.action));
    const rows = new Map(
      ours.length === 0
        ? []
        : (
            await db
              .select()
              .from(repohostDeliveries)
              .where(
                inArray(
                  repohostDeliveries.id,
                  ours.map((d) => d.guid),
                ),
              )
          ).map((r) => [r.id, r]),
    );
    const stale = now.getTime() - this.opts.staleMs;
    // On the embedded database this is the only process: a run it did not start was killed.
    const me = this.deps.deliveries;
    const alive = (worker: string | null) => !me?.exclusive || worker === me.worker;
    const missed: HookDelivery[] = [];
    /** The oldest delivery still being handled: the next pass looks again from before it. */
    let pending: Date | undefined;
    let gap = false;
    for (const d of ours) {
      const row = rows.get(d.guid);
      if (row?.finishedAt) continue;
      const running =
        !!row?.startedAt && !row.failedAt && row.startedAt.getTime() > stale && alive(row.worker);
      if (row?.redeliveredAt) {
        // Asked once already: still on its way or running, else given up (the safety net covers it).
        const onItsWay =
          (!row.startedAt || row.startedAt < row.redeliveredAt) && row.redeliveredAt.getTime() > stale;
        if (onItsWay || running) pending = minDate(pending, new Date(d.delivered_at));
        else {
          report.gaveUp.push(d.guid);
          gap = true;
        }
        continue;
      }
      if (running) pending = minDate(pending, new Date(d.delivered_at));
      else missed.push(d);
    }
    // Missed pushes: the newest of each repository stands for all of them.
    const newestPush = new Map<string, HookDelivery>();
    for (const d of missed)
      if (d.event === "push") {
        const key = `${d.installation_id}/${d.repository_id}`;
        const seen = newestPush.get(key);
        if (!seen || new Date(d.delivered_at) > new Date(seen.delivered_at)) newestPush.set(key, d);
      }
    const gh = await this.auth();
    for (const d of missed) {
      const scope = d.event === "push" ? "repository" : null;
      if (d.event === "push" && newestPush.get(`${d.installation_id}/${d.repository_id}`) !== d) {
        await this.mark(d, now, { covered: true });
        report.covered++;
        continue;
      }
      await this.mark(d, now, { scope });
      await gh.request("POST /app/hook/deliveries/{delivery_id}/attempts", { delivery_id: d.id });
      this.deps.metrics?.deliveriesRedelivered.inc({ event: d.event });
      report.redelivered.push(d.guid);
    }
    // Where the next pass starts: before the oldest delivery still being handled, else the newest seen.
    const newest = list.reduce<Date | undefined>(
      (m, d) => (m && m >= new Date(d.delivered_at) ? m : new Date(d.delivered_at)),
      undefined,
    );
    // No delivery yet: from now (a minute back, for clocks apart), as the first pass has seen all before.
    const nextSince = pending
      ? new Date(pending.getTime() - 1)
      : (newest ?? since ?? new Date(now.getTime() - 60_000));
    const outOfReach =
      !since || (!reached && now.getTime() - (state.lastPassAt ?? since).getTime() > this.opts.retentionMs);
    report.safetyNet = outOfReach || state.safetyNet;
    if (report.safetyNet) await this.safetyNet(state.lastPassAt, report);
    await db
      .update(appReconcile)
      .set({ since: nextSince, lastPassAt: now, safetyNet: gap })
      .where(eq(appReconcile.id, ROW));
    // GitHub keeps deliveries about three days: what is written down of them goes after 14.
    await db
      .delete(repohostDeliveries)
      .where(lt(repohostDeliveries.receivedAt, new Date(now.getTime() - KEEP_DELIVERIES_MS)));
    return report;
  }

  /** Write down a redelivery (or a push another one covers) before asking GitHub: each once. */
  private async mark(d: HookDelivery, now: Date, o: { scope?: string | null; covered?: boolean }) {
    const covered = o.covered === true;
    const set = {
      redeliveredAt: now,
      scope: covered ? "covered" : (o.scope ?? null),
      ...(covered ? { finishedAt: now } : {}),
    };
    await this.deps.db
      .insert(repohostDeliveries)
      .values({ id: d.guid, event: d.event, receivedAt: now, attempts: 0, ...set })
      .onConflictDoUpdate({ target: repohostDeliveries.id, set });
  }

  /**
   * Every source syncs (an unmoved branch is one conditional read), and the open pull
   * requests updated since the last pass that touch a source's folder and have no check on
   * their head get one. The first pass ever has no last pass: pull requests are left to
   * their webhooks (a check posted before this version is not known to the database).
   */
  private async safetyNet(lastPass: Date | null, report: PassReport): Promise<void> {
    const { db, logger } = this.deps;
    const sources = await db.select().from(repohostSources).where(isNull(repohostSources.deletedAt));
    for (const s of sources) {
      try {
        await this.deps.repohost.store.sync(s.id);
        report.sourcesSynced++;
      } catch (err) {
        logger.warn("reconciliation: a source did not sync", {
          source: s.id,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    if (!lastPass) return;
    const repos = new Map<string, typeof sources>();
    for (const s of sources) {
      if (s.installationId === null) continue; // read with a token: no App, no check to post
      const key = `${s.owner}/${s.repo}`;
      repos.set(key, [...(repos.get(key) ?? []), s]);
    }
    for (const [full, list] of repos) {
      const { owner, repo, installationId } = list[0]!;
      try {
        const gh = await this.auth(installationId!);
        const pulls = await updatedPulls(gh, owner, repo, lastPass);
        for (const p of pulls) {
          const [known] = await db
            .select({ id: appPullChecks.checkRunId })
            .from(appPullChecks)
            .where(
              and(
                eq(appPullChecks.owner, owner),
                eq(appPullChecks.repo, repo),
                eq(appPullChecks.pullNumber, p.number),
                eq(appPullChecks.headSha, p.head.sha),
              ),
            );
          if (known) continue;
          const changed = await changedFiles(gh, {
            owner,
            repo,
            number: p.number,
            headSha: p.head.sha,
            installationId: installationId!,
          });
          const folders = list.map((s) => s.path.replace(/^\.?\/*|\/+$/g, ""));
          const touches = changed.some((f) => folders.some((d) => d === "" || f.startsWith(`${d}/`)));
          if (!touches) continue;
          await checkPullRequest(
            gh,
            {
              owner,
              repo,
              number: p.number,
              headSha: p.head.sha,
              baseSha: p.base.sha,
              installationId: installationId!,
              changed,
            },
            this.deps,
          );
          report.pullsChecked.push(p.number);
        }
      } catch (err) {
        logger.warn("reconciliation: pull requests not checked", {
          repo: full,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}

function minDate(a: Date | undefined, b: Date): Date {
  return a && a < b ? a : b;
}

interface OpenPull {
  number: number;
  updated_at: string;
  head: { sha: string };
  base: { sha: string; ref: string };
}

/** Open pull requests updated at or after `since`, newest first (pages until an older one). */
async function updatedPulls(gh: AppOctokit, owner: string, repo: string, since: Date): Promise<OpenPull[]> {
  const out: OpenPull[] = [];
  for (let page = 1; ; page++) {
    const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls", {
      owner,
      repo,
      state: "open",
      sort: "updated",
      direction: "desc",
      per_page: 100,
      page,
    });
    const list = data as OpenPull[];
    for (const p of list) {
      if (new Date(p.updated_at) < since) return out;
      out.push(p);
    }
    if (list.length < 100) return out;
  }
}
