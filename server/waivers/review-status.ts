/**
 * Review status and approval (docs/review-status.md): `draft` -> `in_review` when reviewers
 * are assigned; `approved` when someone other than the author approves a current version
 * with a Build Ready verdict; back to `in_review` on a new version (the history stays);
 * `superseded` when an approved bundle names it under `supersedes`. Local mode has one
 * person, so nothing there needs a second one: those requests are `second_person_needed`.
 */
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Actor } from "../auth/actor.js";
import type { Accounts } from "../auth/accounts.js";
import type { Db } from "../db/index.js";
import { bundles, docApprovals, docs, reviewRequests } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, VersionConflictError } from "../errors.js";
import { addInboxItems } from "../inbox/items.js";
import { docVerdict, type RunService } from "../runs.js";
import type { BundleStore, DocRecord, DocStatus, VersionEvent } from "../store/types.js";
import { decodeText } from "../../core/lint/engine.js";
import { docLinks } from "../../core/trace/doc.js";

export interface ReviewStatusDeps {
  db: Db;
  store: BundleStore;
  runs: RunService;
  accounts: Accounts;
  clock: Clock;
  logger: Logger;
  mode: "local" | "hosted";
}

/** The local admin's id: in local mode the author of every doc, and the only person. */
const LOCAL_PERSON = "admin";

export class ReviewStatusService {
  constructor(private readonly d: ReviewStatusDeps) {}

  /** Who wrote the doc: the member who created the bundle (in local mode, the one person). */
  authorOf(record: DocRecord): string {
    return record.bundle.createdBy ?? LOCAL_PERSON;
  }

  private async currentVerdict(record: DocRecord) {
    const run = (await this.d.runs.latestRuns([record.doc.id])).get(record.doc.id);
    return docVerdict(run, record.head.number);
  }

  private async setStatus(record: DocRecord, status: DocStatus): Promise<void> {
    if (record.doc.status === status) return;
    await this.d.db.update(docs).set({ status }).where(eq(docs.id, record.doc.id));
    // The bundle list's cached views show the status: tell them it changed.
    this.d.store.events.emit("changed", { bundleId: record.bundle.id });
  }

  async status(docId: string, actor: Actor | undefined) {
    const record = await this.d.store.doc(docId);
    const [reviewers, approvals, verdict] = await Promise.all([
      this.d.db
        .select()
        .from(reviewRequests)
        .where(eq(reviewRequests.docId, docId))
        .orderBy(
          asc(reviewRequests.requestedAt),
          asc(reviewRequests.reviewerName),
          asc(reviewRequests.reviewerId),
        ),
      this.d.db
        .select()
        .from(docApprovals)
        .where(eq(docApprovals.docId, docId))
        .orderBy(asc(docApprovals.approvedAt), asc(docApprovals.by)),
      this.currentVerdict(record),
    ]);
    const roles = new Map<string, string>(
      this.d.mode === "hosted" ? (await this.d.accounts.people()).map((p) => [p.id, p.role]) : [],
    );
    const author = this.authorOf(record);
    const approvedNow = (id: string) => approvals.some((a) => a.versionId === record.head.id && a.by === id);
    const canApprove =
      actor !== undefined &&
      this.d.mode === "hosted" &&
      actor.kind === "user" &&
      (actor.role === "member" || actor.role === "admin") &&
      actor.id !== author &&
      verdict?.result === "build_ready" &&
      !approvedNow(actor.id);
    return {
      doc_id: docId,
      status: record.doc.status,
      author,
      current_version: record.head,
      reviewers: reviewers.map((r) => ({
        id: r.reviewerId,
        name: r.reviewerName,
        role: roles.get(r.reviewerId) ?? "member",
        approved: approvedNow(r.reviewerId),
        requested_by: r.requestedBy,
        requested_at: r.requestedAt.toISOString(),
      })),
      approvals: approvals.map((a) => ({
        by: a.by,
        name: a.byName,
        version_id: a.versionId,
        version_number: a.versionNumber,
        approved_at: a.approvedAt.toISOString(),
        current: a.versionId === record.head.id,
        ...(a.comment ? { comment: a.comment } : {}),
      })),
      ...(verdict ? { verdict } : {}),
      can_approve: canApprove,
    };
  }

  async requestReview(docId: string, actor: Actor, reviewerIds: readonly string[], message?: string) {
    const record = await this.d.store.doc(docId);
    if (this.d.mode === "local")
      throw new ApiError(
        "second_person_needed",
        "local mode has one person; a review needs someone else (hosted mode)",
      );
    const author = this.authorOf(record);
    const people = new Map((await this.d.accounts.people()).map((p) => [p.id, p]));
    const wanted = [...new Set(reviewerIds)];
    const bad = wanted.filter((id) => {
      const p = people.get(id);
      return !p || (p.role !== "member" && p.role !== "admin") || id === author;
    });
    if (bad.length)
      throw new ApiError("unknown_reviewer", `not a member who can approve this doc: ${bad.join(", ")}`, {
        reviewers: bad,
      });
    const now = this.d.clock.now();
    const added = await this.d.db
      .insert(reviewRequests)
      .values(
        wanted.map((id) => ({
          docId,
          reviewerId: id,
          reviewerName: people.get(id)!.name,
          requestedBy: actor.id,
          requestedAt: now,
        })),
      )
      .onConflictDoNothing()
      .returning();
    if (record.doc.status === "draft") await this.setStatus(record, "in_review");
    await addInboxItems(
      this.d.db,
      added.map((r) => ({
        userId: r.reviewerId,
        kind: "review_request" as const,
        summary: `${actor.name} asks you to review ${record.bundle.title}${message ? `: ${message}` : ""}`,
        bundleId: record.bundle.id,
        docId,
        actorId: actor.id,
      })),
      now,
    );
    return this.status(docId, actor);
  }

  async approve(docId: string, actor: Actor, opts: { base_version?: string; comment?: string }) {
    const record = await this.d.store.doc(docId);
    if (this.d.mode === "local")
      throw new ApiError(
        "second_person_needed",
        "local mode has one person, the author of every doc; approval needs a second person (hosted mode)",
      );
    if (actor.id === this.authorOf(record)) throw new ApiError("author_cannot_approve");
    if (opts.base_version !== undefined && opts.base_version !== record.head.id)
      throw new VersionConflictError(opts.base_version, record.head);
    const verdict = await this.currentVerdict(record);
    if (verdict?.result !== "build_ready")
      throw new ApiError(
        "not_build_ready",
        verdict
          ? `the verdict of the current version is ${verdict.result}`
          : "the current version has no verdict yet",
        verdict ? { verdict } : {},
      );
    const [row] = await this.d.db
      .insert(docApprovals)
      .values({
        docId,
        versionId: record.head.id,
        versionNumber: record.head.number,
        by: actor.id,
        byName: actor.name,
        comment: opts.comment ?? null,
        approvedAt: this.d.clock.now(),
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("already_approved", `you approved version ${record.head.number} already`);
    await this.setStatus(record, "approved");
    await this.supersede(record);
    return this.status(docId, actor);
  }

  /** Docs whose bundles this approved doc names under `supersedes` become `superseded`. */
  private async supersede(record: DocRecord): Promise<void> {
    let text: string;
    try {
      text = decodeText((await this.d.store.fileBytes(record.head.id, record.doc.path)).bytes).text;
    } catch {
      return;
    }
    const slugs = docLinks(text)
      .links.filter((l) => l.kind === "supersedes" && !l.external)
      .map((l) => l.target);
    if (slugs.length === 0) return;
    const targets = await this.d.db
      .select({ docId: docs.id, bundleId: bundles.id, status: docs.status })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(and(inArray(bundles.slug, slugs), isNull(bundles.goneAt), isNull(bundles.archivedAt)));
    for (const t of targets) {
      if (t.bundleId === record.bundle.id || t.status === "superseded") continue;
      await this.d.db.update(docs).set({ status: "superseded" }).where(eq(docs.id, t.docId));
      this.d.store.events.emit("changed", { bundleId: t.bundleId });
    }
  }

  /** A new version of an approved doc goes back to review (a sidecar-only save by the service does not). */
  async afterVersion(ev: VersionEvent, sidecarPrefix: string): Promise<void> {
    if (ev.version.message.startsWith(sidecarPrefix)) return;
    // Only an approved doc changes. When the store read the doc's status with the version,
    // no statement is needed for any other; else one, cheap for the many versions of a scan.
    if (ev.docStatus !== undefined && ev.docStatus !== "approved") return;
    const moved = await this.d.db
      .update(docs)
      .set({ status: "in_review" })
      .where(and(eq(docs.id, ev.docId), eq(docs.status, "approved")))
      .returning({ id: docs.id });
    if (moved.length > 0) this.d.store.events.emit("changed", { bundleId: ev.bundleId });
  }
}
