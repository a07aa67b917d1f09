/**
 * Waivers and acknowledgements (docs/waivers.md): request one for a finding, an upstream
 * trace ID or the whole doc (standalone); approve or reject it under the profile's policy;
 * withdraw an acknowledgement. An approved one is written, signed, to the doc's sidecar as
 * a new version (sidecar-sync.ts), and that version's lint counts it (`waivedFor`).
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Actor } from "../auth/actor.js";
import type { Accounts } from "../auth/accounts.js";
import type { Db } from "../db/index.js";
import { profiles as profilesTable, waivers } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { ProfileRegistry } from "../profiles.js";
import type { RunService } from "../runs.js";
import type { BundleStore, DocRecord } from "../store/types.js";
import { parseMarkdown, type MarkdownDoc } from "../../core/markdown/document.js";
import { decodeText } from "../../core/lint/engine.js";
import { addInboxItems } from "../inbox/items.js";
import { loadGraph } from "../trace/load.js";
import { mayApprove, policyOf } from "./policy.js";
import type { SidecarSigner } from "./signature.js";
import { SidecarSync } from "./sidecar-sync.js";
import { ambiguityText } from "../../core/waivers/match.js";
import type { FindingRow } from "../runs.js";
import { rowBound, rowNamed, waivable } from "./named.js";
import { waiverView, type WaiverRow } from "./views.js";

export interface WaiverServiceDeps {
  db: Db;
  store: BundleStore;
  profiles: ProfileRegistry;
  runs: RunService;
  accounts: Accounts;
  clock: Clock;
  logger: Logger;
  mode: "local" | "hosted";
  signer: SidecarSigner;
}

export interface NewWaiver {
  finding_id?: string;
  trace_id?: string;
  upstream?: string;
  standalone?: boolean;
  reason: string;
}

export const MIN_REASON = 20;

/** Length in characters (code points), blanks at either end left out. */
export function reasonLength(reason: string): number {
  return [...reason.trim()].length;
}

export class WaiverService {
  readonly sidecar: SidecarSync;
  /** Told after a doc's waivers may have changed status (server/waivers/pending.ts). */
  onDocChange: ((docId: string) => void) | undefined;

  constructor(private readonly d: WaiverServiceDeps) {
    this.sidecar = new SidecarSync(d);
  }

  /** Run a change of a doc's waivers, then tell `onDocChange` (also when it failed half-way). */
  private async changing<T>(docId: string, change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } finally {
      this.onDocChange?.(docId);
    }
  }

  private async row(waiverId: string): Promise<WaiverRow> {
    const [row] = await this.d.db.select().from(waivers).where(eq(waivers.id, waiverId));
    if (!row) throw new NotFoundError("waiver", waiverId);
    return row;
  }

  async maintainersOf(profileKey: string): Promise<string[]> {
    const [p] = await this.d.db
      .select({ maintainers: profilesTable.maintainers })
      .from(profilesTable)
      .where(eq(profilesTable.key, profileKey));
    return p?.maintainers ?? [];
  }

  /** The current main doc of a doc, parsed (undefined when it cannot be read). */
  async currentMain(record: DocRecord): Promise<MarkdownDoc | undefined> {
    try {
      const { bytes } = await this.d.store.fileBytes(record.head.id, record.doc.path);
      return parseMarkdown(decodeText(bytes).text);
    } catch {
      return undefined;
    }
  }

  /** The findings of a doc's latest finished review, the ones waivers name (undefined: none yet). */
  private async latestFindings(docId: string): Promise<FindingRow[] | undefined> {
    const run = (await this.d.runs.latestRuns([docId])).get(docId);
    return run && run.status === "done" ? this.d.runs.findings(run.id) : undefined;
  }

  private async views(rows: WaiverRow[], actor: Actor | undefined, record?: DocRecord) {
    const main = record ? await this.currentMain(record) : undefined;
    const stored = rows.some((r) => r.kind === "finding")
      ? await this.latestFindings(rows[0]!.docId)
      : undefined;
    const findings = stored && waivable(stored);
    const maintainers = new Map<string, string[]>();
    for (const r of rows)
      if (!maintainers.has(r.profileKey))
        maintainers.set(r.profileKey, await this.maintainersOf(r.profileKey));
    return rows.map((r) =>
      waiverView(r, {
        actor,
        main,
        findings,
        maintainers: maintainers.get(r.profileKey) ?? [],
        mode: this.d.mode,
      }),
    );
  }

  async view(waiverId: string, actor: Actor | undefined) {
    const row = await this.row(waiverId);
    const [v] = await this.views([row], actor, await this.d.store.doc(row.docId));
    return v!;
  }

  /** Waivers and acknowledgements of a doc, newest first. */
  async list(docId: string, actor: Actor | undefined) {
    const record = await this.d.store.doc(docId);
    const rows = await this.d.db
      .select()
      .from(waivers)
      .where(eq(waivers.docId, docId))
      .orderBy(desc(waivers.createdAt), desc(waivers.id));
    return this.views(rows, actor, record);
  }

  /** Open (requested or approved) rows of a doc, for duplicates. */
  private async live(docId: string): Promise<WaiverRow[]> {
    return this.d.db
      .select()
      .from(waivers)
      .where(and(eq(waivers.docId, docId), inArray(waivers.status, ["requested", "approved"])));
  }

  async request(docId: string, actor: Actor, body: NewWaiver) {
    const record = await this.d.store.doc(docId);
    const targets = [body.finding_id !== undefined, body.trace_id !== undefined, body.standalone === true];
    if (targets.filter(Boolean).length !== 1 || (body.upstream !== undefined && body.trace_id === undefined))
      throw new ApiError(
        "waiver_target",
        "name exactly one of finding_id, trace_id (with upstream) or standalone: true",
      );
    if (reasonLength(body.reason) < MIN_REASON)
      throw new ApiError(
        "reason_too_short",
        `the reason has ${reasonLength(body.reason)} characters; a waiver needs at least ${MIN_REASON}`,
      );
    const profile = this.d.profiles.get(record.doc.profileKey);
    const policy = policyOf(profile);
    const live = await this.live(docId);
    const now = this.d.clock.now();
    const base = {
      id: randomUUID(),
      docId,
      bundleId: record.bundle.id,
      status: "requested",
      reason: body.reason.trim(),
      profileKey: record.doc.profileKey,
      approvalsNeeded: policy.approvals,
      approvers: policy.approvers,
      approvals: [] as WaiverRow["approvals"],
      source: "service",
      createdBy: actor.id,
      createdByName: actor.name,
      createdAt: now,
      updatedAt: now,
    };
    let row: typeof waivers.$inferInsert;
    if (body.finding_id !== undefined) {
      const all = (await this.latestFindings(docId)) ?? [];
      const finding = all.find((f) => f.id === body.finding_id);
      if (!finding)
        throw new ApiError(
          "finding_not_found",
          `the latest review of this doc has no finding ${body.finding_id}`,
        );
      if (finding.level === "MUST" && !policy.allowMust)
        throw new ApiError(
          "must_not_waivable",
          `profile ${record.doc.profileKey} does not let MUST findings be waived`,
        );
      // Another live waiver of this very finding (never of one that only looks the same).
      const findings = waivable(all);
      const dup = live.find((w) => {
        const named = w.kind === "finding" ? rowNamed(w, findings) : undefined;
        return named?.kind === "one" && named.id === finding.id;
      });
      if (dup) throw new ApiError("waiver_exists", undefined, { waiver_id: dup.id });
      row = {
        ...base,
        kind: "finding",
        findingId: finding.id,
        checkSlug: finding.checkSlug,
        level: finding.level,
        anchor: finding.anchor ?? null,
      };
    } else if (body.trace_id !== undefined) {
      const upstream = await this.upstreamOf(docId, body.trace_id, body.upstream);
      const dup = live.find(
        (w) => w.kind === "trace" && w.traceId === body.trace_id && w.upstream === upstream,
      );
      if (dup) throw new ApiError("waiver_exists", undefined, { waiver_id: dup.id });
      row = { ...base, kind: "trace", traceId: body.trace_id, upstream };
    } else {
      const dup = live.find((w) => w.kind === "standalone");
      if (dup) throw new ApiError("waiver_exists", undefined, { waiver_id: dup.id });
      row = { ...base, kind: "standalone" };
    }
    const inserted = await this.changing(docId, async () => {
      const [inserted] = await this.d.db.insert(waivers).values(row).returning();
      if (policy.approvals === 0) {
        // No approval needed: approved at once, and written to the sidecar like any other.
        await this.finalize(inserted!, actor, inserted!.approvals);
      } else {
        await this.notifyApprovers(inserted!, record);
      }
      return inserted!;
    });
    return this.view(inserted.id, actor);
  }

  /**
   * The one finding a finding waiver is approved for, as the row should hold it: a request
   * typed into the sidecar names it by its text, which must fit exactly one finding of the
   * latest review (`waiver_ambiguous` when it fits several). Undefined: the row is bound already.
   */
  private async binding(row: WaiverRow): Promise<Partial<WaiverRow> | undefined> {
    if (row.kind !== "finding" || rowBound(row)) return undefined;
    const all = (await this.latestFindings(row.docId)) ?? [];
    const named = rowNamed(row, waivable(all));
    if (named.kind === "many")
      throw new ApiError("waiver_ambiguous", `This waiver ${ambiguityText(named)}.`, {
        finding_ids: named.ids,
      });
    const finding = named.kind === "one" ? all.find((f) => f.id === named.id) : undefined;
    if (!finding)
      throw new ApiError(
        "finding_not_found",
        "the latest review of this doc has no finding this waiver names",
      );
    return {
      findingId: finding.id,
      checkSlug: finding.checkSlug,
      level: finding.level,
      anchor: finding.anchor,
    };
  }

  /** The upstream bundle slug whose matrix has `traceId` as a row with this doc as a column. */
  private async upstreamOf(docId: string, traceId: string, upstream: string | undefined): Promise<string> {
    const loaded = await loadGraph(this.d.store, this.d.profiles, this.d.db);
    const i = loaded.indexOf(docId);
    await loaded.details(loaded.graph.involved(i));
    for (const m of loaded.graph.matrices(i)) {
      if (m.upstream === i || !m.columns.includes(i)) continue;
      const slug = loaded.graph.docs[m.upstream]!.ref.slug;
      if (upstream !== undefined && upstream !== slug) continue;
      if (m.rows.some((r) => r.id === traceId)) return slug;
    }
    throw new ApiError(
      "unknown_trace_id",
      `no bundle this doc implements defines ${traceId}${upstream ? ` (upstream ${upstream})` : ""}`,
    );
  }

  /** Ids of the people who may decide `row` (never its requester). */
  async approversOf(row: WaiverRow): Promise<string[]> {
    const maintainers = await this.maintainersOf(row.profileKey);
    if (this.d.mode === "local") return row.createdBy === "admin" ? [] : ["admin"];
    const people = await this.d.accounts.people();
    return people
      .filter((p) => p.id !== row.createdBy)
      .filter((p) =>
        mayApprove(row.approvers, { id: p.id, kind: "user", role: p.role as Actor["role"] }, maintainers),
      )
      .map((p) => p.id);
  }

  private async notifyApprovers(row: WaiverRow, record: DocRecord): Promise<void> {
    const approvers = await this.approversOf(row);
    const what =
      row.kind === "finding"
        ? `finding ${row.checkSlug}`
        : row.kind === "trace"
          ? row.traceId
          : "the whole doc";
    await addInboxItems(
      this.d.db,
      approvers
        .filter((id) => !row.approvals.some((a) => a.by === id))
        .map((userId) => ({
          userId,
          kind: "waiver_to_decide" as const,
          summary: `${row.createdByName} asks to waive ${what} of ${record.bundle.title}: ${row.reason}`,
          bundleId: row.bundleId,
          docId: row.docId,
          waiverId: row.id,
          actorId: row.createdBy,
        })),
      this.d.clock.now(),
    );
  }

  /** A hand-written sidecar entry became a request: the people who may decide it hear of it. */
  async notifySidecarRequest(row: WaiverRow): Promise<void> {
    await this.notifyApprovers(row, await this.d.store.doc(row.docId));
  }

  /** Refuse a decision the caller may not make on `row`. */
  private async checkDecider(row: WaiverRow, actor: Actor): Promise<void> {
    if (row.status !== "requested")
      throw new ApiError("waiver_not_open", `the waiver is ${row.status}`, { status: row.status });
    if (actor.id === row.createdBy)
      throw this.d.mode === "local"
        ? new ApiError(
            "second_person_needed",
            "you requested this waiver; in local mode nobody else can approve it",
          )
        : new ApiError("own_waiver");
    if (!mayApprove(row.approvers, actor, await this.maintainersOf(row.profileKey)))
      throw new ApiError("not_an_approver", `approvers under this profile's policy: ${row.approvers}`);
  }

  async approve(waiverId: string, actor: Actor) {
    const row = await this.row(waiverId);
    await this.checkDecider(row, actor);
    if (row.approvals.some((a) => a.by === actor.id)) throw new ApiError("already_approved");
    const approvals = [
      ...row.approvals,
      { by: actor.id, name: actor.name, at: this.d.clock.now().toISOString() },
    ];
    const final = approvals.length >= row.approvalsNeeded;
    const bind = final ? await this.binding(row) : undefined;
    await this.changing(row.docId, async () => {
      if (final) await this.finalize(row, actor, approvals, bind);
      else
        await this.d.db
          .update(waivers)
          .set({ approvals, updatedAt: this.d.clock.now() })
          .where(and(eq(waivers.id, row.id), eq(waivers.status, "requested")));
    });
    return this.view(waiverId, actor);
  }

  /** The final approval: approved in the database, then written to the sidecar (undone if that fails). */
  private async finalize(
    row: WaiverRow,
    actor: Actor,
    approvals: WaiverRow["approvals"],
    bind?: Partial<WaiverRow>,
  ): Promise<void> {
    const now = this.d.clock.now();
    const [updated] = await this.d.db
      .update(waivers)
      .set({ ...bind, status: "approved", approvals, decidedBy: actor.id, updatedAt: now })
      .where(and(eq(waivers.id, row.id), eq(waivers.status, "requested")))
      .returning();
    if (!updated) throw new ApiError("waiver_not_open", "the waiver was decided meanwhile");
    this.sidecar.approvedIn(row.docId);
    try {
      await this.sidecar.write(
        row.docId,
        actor.id,
        `${this.sidecar.messagePrefix} approved ${this.label(row)}`,
      );
    } catch (err) {
      const unbind = bind && {
        findingId: row.findingId,
        checkSlug: row.checkSlug,
        level: row.level,
        anchor: row.anchor,
      };
      await this.d.db
        .update(waivers)
        .set({
          ...unbind,
          status: "requested",
          approvals: row.approvals,
          decidedBy: null,
          updatedAt: row.updatedAt,
        })
        .where(eq(waivers.id, row.id));
      throw err;
    }
  }

  private label(row: WaiverRow): string {
    if (row.kind === "finding") return `waiver of ${row.checkSlug ?? "a finding"}`;
    if (row.kind === "trace") return `acknowledgement of ${row.traceId}`;
    return "standalone acknowledgement";
  }

  async reject(waiverId: string, actor: Actor, reason: string) {
    const row = await this.row(waiverId);
    await this.checkDecider(row, actor);
    const [updated] = await this.changing(row.docId, () =>
      this.d.db
        .update(waivers)
        .set({
          status: "rejected",
          rejectionReason: reason,
          decidedBy: actor.id,
          updatedAt: this.d.clock.now(),
        })
        .where(and(eq(waivers.id, row.id), eq(waivers.status, "requested")))
        .returning(),
    );
    if (!updated) throw new ApiError("waiver_not_open", "the waiver was decided meanwhile");
    if (row.source === "service") {
      const record = await this.d.store.doc(row.docId);
      await addInboxItems(
        this.d.db,
        [
          {
            userId: row.createdBy,
            kind: "waiver_rejected",
            summary: `${actor.name} rejected your ${this.label(row)} on ${record.bundle.title}: ${reason}`,
            bundleId: row.bundleId,
            docId: row.docId,
            waiverId: row.id,
            actorId: actor.id,
          },
        ],
        this.d.clock.now(),
      );
    }
    return this.view(waiverId, actor);
  }

  /** Take an approved acknowledgement out at once: withdrawn, and out of the sidecar. */
  async withdraw(docId: string, actor: Actor, waiverId: string) {
    const row = await this.row(waiverId);
    if (row.docId !== docId) throw new NotFoundError("waiver", waiverId);
    if (row.kind === "finding" || row.status !== "approved")
      throw new ApiError(
        "not_an_acknowledgement",
        row.kind === "finding" ? "this is a waiver of a finding" : `the acknowledgement is ${row.status}`,
      );
    const now = this.d.clock.now();
    const [updated] = await this.d.db
      .update(waivers)
      .set({ status: "withdrawn", withdrawnBy: actor.id, updatedAt: now })
      .where(and(eq(waivers.id, row.id), eq(waivers.status, "approved")))
      .returning();
    if (!updated) throw new ApiError("not_an_acknowledgement", "the acknowledgement was withdrawn meanwhile");
    try {
      await this.sidecar.write(docId, actor.id, `${this.sidecar.messagePrefix} withdrew ${this.label(row)}`);
    } catch (err) {
      await this.d.db
        .update(waivers)
        .set({ status: "approved", withdrawnBy: null, updatedAt: row.updatedAt })
        .where(eq(waivers.id, row.id));
      this.sidecar.approvedIn(row.docId);
      throw err;
    }
    return this.view(waiverId, actor);
  }
}
