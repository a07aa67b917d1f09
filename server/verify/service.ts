/**
 * Verification runs (docs/verification.md): a request is checked at once (the target
 * resolves, the claims' quotes are each found exactly once), recorded `queued`, and run
 * in the background: the code is scanned for the bundle's trace IDs (scan/), each ID gets
 * an outcome, and the run its own verdict. Progress is persisted as events
 * (verification_events) that GET /verifications/{runId}/events streams.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pLimit from "p-limit";
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { handoffs, verificationEvents, verificationRuns } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { RunBus } from "../jobs/bus.js";
import { EventWriter } from "../jobs/events.js";
import type { Budget, ModelRoles } from "../models/types.js";
import type { ProfileRegistry } from "../profiles.js";
import type { BundleStore, DocRecord } from "../store/types.js";
import { safeRelativePath } from "../store/paths.js";
import { docLinks } from "../../core/trace/doc.js";
import { gitSource, readAt } from "./git.js";
import { modelChecker, type Checker } from "./check.js";
import { missingRepoReader, noThreads, type VerifyPorts } from "./ports.js";
import { requirementsOf, type Requirement } from "./requirements.js";
import { folderSource } from "./scan/folder.js";
import type { Hit } from "./scan/match.js";
import { ScanPool, type ScanLimits, type ScanResult, type ScanSource } from "./scan/pool.js";
import { checkFolder, parseTarget, type Parsed, type TargetInput } from "./targets.js";
import { tableWaivers } from "./waivers.js";

export type VerificationRow = typeof verificationRuns.$inferSelect;

export interface Target {
  kind: "code" | "test";
  path: string;
  quote: string;
  line?: number;
  holds?: boolean;
  fault?: string;
  provenance: "scan" | "claim";
  /** The file changed between the base commit and the commit read (ranked first). */
  changed?: boolean;
}

export interface Outcome {
  trace_id: string;
  /** `implemented`, `missing`, `waived`, or `fault` (a model found no code target that holds). */
  outcome: string;
  level: string;
  /** `scan` (targets found in code), `claim` (targets a request named), `waiver`. */
  provenance: string;
  /** Inside the profile's verify prefixes: counts toward the run's verdict. */
  gated: boolean;
  text: string;
  targets: Target[];
}

/** What a request's target resolves to, and how a run reads it. */
export interface Plan {
  view: {
    kind: "repo" | "folder";
    repo?: string;
    branch?: string;
    sha?: string;
    path?: string;
    pull_request?: number;
    base_sha?: string;
  };
  /** The repo (`owner/name`) or folder, as runs and waivers name it. */
  name: string;
  changed: string[];
  digest: boolean;
  source(): ScanSource;
  readFile(path: string): Promise<Uint8Array | undefined>;
}

export interface VerifyServiceOptions {
  db: Db;
  store: BundleStore;
  profiles: ProfileRegistry;
  models: ModelRoles;
  budget: Budget;
  bus: RunBus;
  clock: Clock;
  logger: Logger;
  mode: "local" | "hosted";
  /** Folders local mode may verify (and what is inside them). */
  roots: string[];
  ports?: Partial<VerifyPorts>;
  limits?: Partial<ScanLimits>;
}

function count(haystack: Buffer, needle: Buffer): number {
  if (needle.length === 0) return 0;
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

function lineAt(buf: Buffer, offset: number): number {
  let line = 1;
  for (let p = buf.indexOf(10); p !== -1 && p < offset; p = buf.indexOf(10, p + 1)) line++;
  return line;
}

/** Longer than any run may take (scan time limit, then model checks): a run queued this long is orphaned. */
const ORPHAN_AFTER_MS = 60 * 60 * 1000;

interface ClaimInput {
  trace_id: string;
  targets: Array<{ kind: string; path: string; quote: string }>;
}

export class VerificationService {
  ports: VerifyPorts;
  roots: string[];
  limits: Partial<ScanLimits>;
  private readonly running = new Set<Promise<void>>();
  /** Scan worker threads, kept warm between runs. */
  private readonly pool = new ScanPool();
  private stopped = false;

  constructor(private readonly o: VerifyServiceOptions) {
    this.ports = {
      threads: o.ports?.threads ?? noThreads,
      repos: o.ports?.repos ?? missingRepoReader,
      waivers: o.ports?.waivers ?? tableWaivers(o.db),
    };
    this.roots = o.roots;
    this.limits = o.limits ?? {};
  }

  // ---------------------------------------------------------------- targets

  async plan(input: TargetInput, parsedIn?: Parsed): Promise<Plan> {
    const parsed = parsedIn ?? parseTarget(input);
    if (!parsed) throw new ApiError("verification_target_missing");
    if (parsed.kind === "folder") {
      const f = await checkFolder(parsed, this.o.mode, this.roots);
      if (f.git) {
        const g = f.git;
        return {
          view: { kind: "folder", path: f.path, sha: g.sha, branch: g.branch, base_sha: g.base_sha },
          name: f.path,
          changed: g.changed,
          digest: false,
          source: () => gitSource(g.top, g.sha),
          readFile: (p) => readAt(g.top, g.sha, p),
        };
      }
      return {
        view: { kind: "folder", path: f.path, base_sha: "" },
        name: f.path,
        changed: [],
        digest: true,
        source: () => folderSource(f.path),
        readFile: async (p) => {
          try {
            return await readFile(join(f.path, p));
          } catch {
            return undefined;
          }
        },
      };
    }
    const repos = this.ports.repos;
    const r = await repos.resolve(parsed.ref);
    return {
      view: {
        kind: "repo",
        repo: r.repo,
        sha: r.sha,
        branch: r.branch,
        base_sha: r.base_sha,
        ...(r.pull_request ? { pull_request: r.pull_request } : {}),
      },
      name: r.repo,
      changed: r.changed,
      digest: false,
      source: () => repos.source(r.repo, r.sha),
      readFile: (p) => repos.readFile(r.repo, r.sha, p),
    };
  }

  private async mainText(rec: DocRecord): Promise<string> {
    const { bytes } = await this.o.store.fileBytes(rec.head.id, rec.doc.path);
    return Buffer.from(bytes).toString("utf8");
  }

  /** Targets that prefill the verify field: implemented-by links first, else the last run's. */
  async defaults(docId: string): Promise<Array<{ target: string; source: "implemented_by" | "last_run" }>> {
    const rec = await this.o.store.doc(docId);
    const links = docLinks(await this.mainText(rec)).links.filter(
      (l) => l.kind === "implemented-by" && l.external,
    );
    if (links.length > 0) return links.map((l) => ({ target: l.target, source: "implemented_by" as const }));
    const [last] = await this.o.db
      .select({ target: verificationRuns.target })
      .from(verificationRuns)
      .where(eq(verificationRuns.docId, docId))
      .orderBy(desc(verificationRuns.createdAt))
      .limit(1);
    const t = last?.target as { repo?: string; path?: string } | undefined;
    const name = t?.repo ?? t?.path;
    return name ? [{ target: name, source: "last_run" }] : [];
  }

  // -------------------------------------------------------------------- runs

  async start(
    docId: string,
    body: TargetInput & { handoff_id?: string; claims?: ClaimInput[] },
    by: string,
  ): Promise<VerificationRow> {
    const rec = await this.o.store.doc(docId);
    let input: TargetInput = body;
    if (!parseTarget(body)) {
      const [first] = await this.defaults(docId);
      if (!first) throw new ApiError("verification_target_missing");
      input = { target: first.target, sha: body.sha };
    }
    if (body.handoff_id) {
      const [h] = await this.o.db
        .select({ id: handoffs.id })
        .from(handoffs)
        .where(and(eq(handoffs.id, body.handoff_id), eq(handoffs.docId, docId)));
      if (!h)
        throw new ApiError("handoff_not_found", `handoff ${body.handoff_id} is not a handoff of this doc`);
    }
    const plan = await this.plan(input);
    const claims = await this.checkClaims(plan, body.claims ?? []);
    const row: VerificationRow = {
      id: randomUUID(),
      docId,
      bundleId: rec.bundle.id,
      versionNumber: rec.head.number,
      status: "queued",
      verdict: null,
      target: { ...plan.view, name: plan.name },
      handoffId: body.handoff_id ?? null,
      claims,
      outcomes: [],
      result: {},
      error: null,
      openedBlockingThread: false,
      createdBy: by,
      createdAt: this.o.clock.now(),
      finishedAt: null,
    };
    await this.o.db.insert(verificationRuns).values(row);
    const job = this.execute(row, rec, plan).catch((err: unknown) =>
      this.o.logger.error("verification run crashed", { run_id: row.id, error: String(err) }),
    );
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
    return row;
  }

  /** Each claim target's quote must appear in its file exactly once (contract rule 8). */
  private async checkClaims(
    plan: Plan,
    claims: ClaimInput[],
  ): Promise<Array<{ trace_id: string; targets: Target[] }>> {
    const out = [];
    for (const claim of claims) {
      const targets: Target[] = [];
      for (const t of claim.targets) {
        const named = { trace_id: claim.trace_id, path: t.path, quote: t.quote };
        let path: string;
        try {
          path = safeRelativePath(t.path);
        } catch {
          throw new ApiError(
            "claim_file_not_found",
            `claim for ${claim.trace_id}: ${JSON.stringify(t.path)} is not a file path in the repo`,
            named,
          );
        }
        const bytes = await plan.readFile(path);
        if (!bytes)
          throw new ApiError(
            "claim_file_not_found",
            `claim for ${claim.trace_id}: ${path} is not in ${plan.name}`,
            named,
          );
        const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const needle = Buffer.from(t.quote, "utf8");
        const n = count(buf, needle);
        if (n === 0)
          throw new ApiError(
            "claim_quote_not_found",
            `claim for ${claim.trace_id}: the quote is not in ${path}`,
            named,
          );
        if (n > 1)
          throw new ApiError(
            "claim_quote_ambiguous",
            `claim for ${claim.trace_id}: the quote appears ${n} times in ${path}; quote more of the line`,
            { ...named, count: n },
          );
        targets.push({
          kind: t.kind === "test" ? "test" : "code",
          path,
          quote: t.quote,
          line: lineAt(buf, buf.indexOf(needle)),
          provenance: "claim",
        });
      }
      out.push({ trace_id: claim.trace_id, targets });
    }
    return out;
  }

  private async execute(row: VerificationRow, rec: DocRecord, plan: Plan): Promise<void> {
    const events = new EventWriter(this.o.db, this.o.bus, this.o.clock, row.id, verificationEvents);
    try {
      events.emit("started", { target: row.target });
      const profile = this.o.profiles.get(rec.doc.profileKey);
      const reqs = requirementsOf(await this.mainText(rec), rec.doc.path, profile);
      const scan = await this.pool.scan(plan.source(), {
        ids: reqs.map((r) => r.id),
        limits: this.limits,
        digest: plan.digest,
      });
      events.emit("scanned", {
        files: scan.files,
        bytes: scan.bytes,
        limits_hit: scan.limits_hit,
        duration_ms: scan.duration_ms,
      });
      const checker = await modelChecker(this.o.models, this.o.budget, this.o.clock, this.o.logger);
      const waived = await this.ports.waivers!.approvedTraceIds(row.docId, plan.name);
      const claims = new Map(
        (row.claims as Array<{ trace_id: string; targets: Target[] }>).map((c) => [c.trace_id, c.targets]),
      );
      const outcomes = await this.outcomes(reqs, scan, plan, claims, waived, checker);
      for (const o of outcomes)
        events.emit("trace_id", {
          trace_id: o.trace_id,
          outcome: o.outcome,
          level: o.level,
          targets: o.targets.length,
        });
      const gatedMust = outcomes.filter((o) => o.gated && o.level === "MUST");
      const verified = gatedMust.every((o) => o.outcome === "implemented" || o.outcome === "waived");
      const verdict = verified ? "verified" : "not_verified";
      const missingMust = gatedMust.filter((o) => o.outcome === "missing" || o.outcome === "fault");
      let opened = false;
      if (row.handoffId && missingMust.length > 0)
        opened = await this.openBlocking(row, rec, plan, missingMust);
      const result = {
        check: checker ? "model" : "presence",
        ...(checker
          ? { model: checker.model }
          : { note: "no model is configured: the run knows presence only" }),
        ...(scan.digest ? { digest: scan.digest } : {}),
        unverified_ids: outcomes.filter((o) => !o.gated).map((o) => o.trace_id),
        limits_hit: scan.limits_hit,
        scan: {
          files: scan.files,
          bytes: scan.bytes,
          binary: scan.binary,
          symlinks: scan.symlinks,
          special: scan.special,
          too_large: scan.too_large.slice(0, 100),
          unreadable: scan.unreadable.slice(0, 100),
          duration_ms: scan.duration_ms,
        },
      };
      await this.o.db
        .update(verificationRuns)
        .set({
          status: "done",
          verdict,
          outcomes,
          result,
          openedBlockingThread: opened,
          finishedAt: this.o.clock.now(),
        })
        .where(eq(verificationRuns.id, row.id));
      events.emit("done", { verdict, opened_blocking_thread: opened });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await this.o.db
        .update(verificationRuns)
        .set({ status: "failed", error, finishedAt: this.o.clock.now() })
        .where(eq(verificationRuns.id, row.id));
      events.emit("failed", { error });
    }
    await events.flush();
  }

  private async outcomes(
    reqs: Requirement[],
    scan: ScanResult,
    plan: Plan,
    claims: Map<string, Target[]>,
    waived: Set<string>,
    checker: Checker | undefined,
  ): Promise<Outcome[]> {
    const changed = new Set(plan.changed);
    const byId = new Map<string, Hit[]>();
    for (const h of scan.hits) {
      const list = byId.get(h.id) ?? [];
      list.push(h);
      byId.set(h.id, list);
    }
    const limit = pLimit(4);
    return Promise.all(
      reqs.map(async (req): Promise<Outcome> => {
        const claimed = claims.get(req.id);
        const hits = byId.get(req.id) ?? [];
        const contextOf = new Map(hits.map((h) => [`${h.path}:${h.line}`, h.context]));
        let targets: Target[] =
          claimed?.map((t) => ({ ...t })) ??
          hits.map((h) => ({
            kind: h.kind,
            path: h.path,
            quote: h.quote,
            line: h.line,
            provenance: "scan" as const,
          }));
        for (const t of targets) if (changed.has(t.path)) t.changed = true;
        // Changed files first, then code before tests, then by path and line.
        targets = targets.sort(
          (a, b) =>
            Number(!!b.changed) - Number(!!a.changed) ||
            Number(a.kind === "test") - Number(b.kind === "test") ||
            (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)),
        );
        const code = targets.filter((t) => t.kind === "code");
        let outcome: string;
        if (code.length === 0) outcome = waived.has(req.id) ? "waived" : "missing";
        else if (!checker) outcome = "implemented";
        else {
          // The model reads the three best-ranked code targets; a claim's context is read from its file.
          await Promise.all(
            code.slice(0, 3).map((t) =>
              limit(async () => {
                const context =
                  contextOf.get(`${t.path}:${t.line}`) ??
                  (await this.contextFromFile(plan, t.path, t.line ?? 1));
                try {
                  const r = await checker.check(req, { path: t.path, line: t.line ?? 1, context });
                  t.holds = r.holds;
                  if (r.fault) t.fault = r.fault;
                } catch (err) {
                  this.o.logger.warn("verification check failed", { trace_id: req.id, error: String(err) });
                }
              }),
            ),
          );
          const checked = code.filter((t) => t.holds !== undefined);
          if (checked.length === 0 || checked.some((t) => t.holds)) outcome = "implemented";
          else outcome = waived.has(req.id) ? "waived" : "fault";
        }
        return {
          trace_id: req.id,
          outcome,
          level: req.level,
          provenance: claimed ? "claim" : outcome === "waived" ? "waiver" : "scan",
          gated: req.gated,
          text: req.text,
          targets,
        };
      }),
    );
  }

  private async contextFromFile(plan: Plan, path: string, line: number): Promise<string> {
    const bytes = await plan.readFile(path);
    if (!bytes) return "";
    const lines = Buffer.from(bytes).toString("utf8").split("\n");
    return lines
      .slice(Math.max(0, line - 6), line + 6)
      .join("\n")
      .slice(0, 2000);
  }

  private async openBlocking(
    row: VerificationRow,
    rec: DocRecord,
    plan: Plan,
    missing: Outcome[],
  ): Promise<boolean> {
    const [h] = await this.o.db
      .select({ versionNumber: handoffs.versionNumber })
      .from(handoffs)
      .where(eq(handoffs.id, row.handoffId!));
    const list = missing.map((o) => `- **${o.trace_id}** (${o.outcome}): ${o.text}`).join("\n");
    try {
      const t = await this.ports.threads.openBlocking({
        docId: row.docId,
        bundleId: rec.bundle.id,
        createdBy: row.createdBy,
        title: `Verification of ${plan.name}: ${missing.length} MUST ID(s) not implemented`,
        body: `The verification run ${row.id} of the build taken from handoff ${row.handoffId} found these MUST IDs not implemented:\n\n${list}\n`,
        handoffId: row.handoffId!,
        handoffVersion: h?.versionNumber ?? 0,
      });
      return t !== undefined;
    } catch (err) {
      this.o.logger.error("opening a blocking thread failed", { run_id: row.id, error: String(err) });
      return false;
    }
  }

  async get(runId: string): Promise<VerificationRow> {
    const [row] = await this.o.db.select().from(verificationRuns).where(eq(verificationRuns.id, runId));
    if (!row) throw new NotFoundError("verification run", runId);
    return this.orphaned(row) ? this.failOrphan(row) : row;
  }

  /**
   * A run still `queued` long after any run could take (the service that ran it stopped):
   * it will never finish, so it is failed rather than followed forever.
   */
  private orphaned(row: VerificationRow): boolean {
    return (
      row.status === "queued" && this.o.clock.now().getTime() - row.createdAt.getTime() > ORPHAN_AFTER_MS
    );
  }

  private async failOrphan(row: VerificationRow): Promise<VerificationRow> {
    const error = "the run did not finish: the service running it stopped";
    const finishedAt = this.o.clock.now();
    await this.o.db
      .update(verificationRuns)
      .set({ status: "failed", error, finishedAt })
      .where(and(eq(verificationRuns.id, row.id), eq(verificationRuns.status, "queued")));
    return { ...row, status: "failed", error, finishedAt };
  }

  async list(docId: string): Promise<VerificationRow[]> {
    await this.o.store.doc(docId);
    const rows = await this.o.db
      .select()
      .from(verificationRuns)
      .where(eq(verificationRuns.docId, docId))
      .orderBy(desc(verificationRuns.createdAt), desc(verificationRuns.id));
    return Promise.all(rows.map((r) => (this.orphaned(r) ? this.failOrphan(r) : Promise.resolve(r))));
  }

  /** Wait for runs in flight (closing the service graph). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running]);
    await this.pool.close();
  }

  /** Runs in flight (tests wait for them). */
  idle(): Promise<unknown> {
    return Promise.allSettled([...this.running]);
  }
}

/** A run as the API shows it (server/schemas/verifications.ts); `current`: the bundle's version now. */
export function runView(row: VerificationRow, current: number | undefined) {
  const t = row.target as Plan["view"] & { name?: string };
  const r = row.result;
  return {
    id: row.id,
    doc_id: row.docId,
    status: row.status as "queued" | "done" | "failed",
    ...(row.verdict ? { verdict: row.verdict } : {}),
    outcomes: row.outcomes as Outcome[],
    target_kind: t.kind,
    ...(t.repo ? { repo: t.repo } : {}),
    ...(t.sha ? { sha: t.sha } : {}),
    ...(t.path ? { path: t.path } : {}),
    ...(t.branch ? { branch: t.branch } : {}),
    ...(t.pull_request ? { pull_request: t.pull_request } : {}),
    base_sha: t.base_sha ?? "",
    ...(row.handoffId ? { handoff_id: row.handoffId } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...r,
    version_number: row.versionNumber,
    bundle_changed: current !== undefined && current > row.versionNumber,
    opened_blocking_thread: row.openedBlockingThread,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    ...(row.finishedAt ? { finished_at: row.finishedAt.toISOString() } : {}),
  };
}
