/**
 * The sidecar between the file and the service:
 *
 * - `write`: render every approved waiver and acknowledgement of a doc, signed, and save
 *   the sidecar as a new version through the bundle store (`base_version` = the head; a
 *   save in between is retried on the new head).
 * - `waivedFor`: what a version's sidecar excuses, for its verdict: a signed entry counts
 *   for the one finding it names (unless the service has since rejected or withdrawn it);
 *   an entry without a valid signature counts for nothing and the finding it names says so.
 * - `sync`: on a new version someone else wrote, a hand-written entry becomes a waiver
 *   request, and an approved entry someone took out of the file is withdrawn.
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { waivers } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError } from "../errors.js";
import type { ProfileRegistry } from "../profiles.js";
import type { BundleStore, VersionEvent } from "../store/types.js";
import { decodeText } from "../../core/lint/engine.js";
import { policyOf } from "./policy.js";
import type { SidecarSigner } from "./signature.js";
import { namedFinding, type WaivableFinding as CoreWaivable } from "../../core/waivers/match.js";
import {
  clean,
  parseSidecar,
  renderSidecar,
  sidecarPath,
  type Sidecar,
  type SidecarAcknowledgement,
  type SidecarWaiver,
} from "../../core/waivers/sidecar.js";
import type { WaiverRow } from "./views.js";

/** A finding as the verdict hook hands it in. */
export interface WaivableFinding extends CoreWaivable {
  message: string;
}

const MESSAGE_PREFIX = "spec-review sidecar:";
const MIN_REASON = 20;

export class SidecarSync {
  readonly messagePrefix = MESSAGE_PREFIX;

  constructor(
    private readonly d: {
      db: Db;
      store: BundleStore;
      profiles: ProfileRegistry;
      clock: Clock;
      logger: Logger;
      signer: SidecarSigner;
      /** This is the only instance (no cluster): every waiver is approved here. */
      sole?: boolean;
    },
  ) {}

  /**
   * Docs that may have approved waivers, when this is the only instance: read once, then
   * added to as waivers are approved here (never taken out). A version with no sidecar of a
   * doc outside it has nothing to sync, and skips the query.
   */
  private approvedDocs: Promise<Set<string>> | undefined;

  private approvedSet(): Promise<Set<string>> {
    const p = (this.approvedDocs ??= this.d.db
      .selectDistinct({ docId: waivers.docId })
      .from(waivers)
      .where(eq(waivers.status, "approved"))
      .then((rows) => new Set(rows.map((r) => r.docId))));
    p.catch(() => {
      if (this.approvedDocs === p) this.approvedDocs = undefined;
    });
    return p;
  }

  /** A waiver of the doc is approved now (call after the change is committed). */
  approvedIn(docId: string): void {
    void this.approvedDocs?.then((set) => set.add(docId)).catch(() => undefined);
  }

  /** The sidecar of a version, when the version has one. */
  async read(versionId: string, mainPath: string): Promise<Sidecar | undefined> {
    const path = sidecarPath(mainPath);
    const manifest = await this.d.store.manifest(versionId);
    if (!manifest.some((f) => f.path === path)) return undefined;
    const { bytes } = await this.d.store.fileBytes(versionId, path);
    return parseSidecar(decodeText(bytes).text);
  }

  /** Every approved entry of the doc, signed, in the order approved. */
  private async entries(docId: string): Promise<Omit<Sidecar, "problem">> {
    const rows = await this.d.db
      .select()
      .from(waivers)
      .where(and(eq(waivers.docId, docId), eq(waivers.status, "approved")))
      .orderBy(waivers.createdAt, waivers.id);
    const sign = <T extends object>(entry: T): T => {
      const fields = clean(entry) as Record<string, unknown>;
      return { ...fields, signature: this.d.signer.sign(docId, fields) } as T;
    };
    const approvedAt = (r: WaiverRow) => r.approvals.at(-1)?.at ?? r.updatedAt.toISOString();
    const common = (r: WaiverRow) => ({
      reason: r.reason,
      requested_by: r.createdByName,
      approved_by: r.approvals.map((a) => a.name),
      approved_at: approvedAt(r),
    });
    return {
      waivers: rows
        .filter((r) => r.kind === "finding")
        .map((r) =>
          sign<SidecarWaiver>({
            id: r.id,
            finding: r.findingId ?? undefined,
            check: r.checkSlug ?? undefined,
            file: r.anchor?.file,
            section: r.anchor?.heading_path,
            quote: r.anchor?.quote,
            ...common(r),
          }),
        ),
      acknowledgements: rows
        .filter((r) => r.kind !== "finding")
        .map((r) =>
          sign<SidecarAcknowledgement>({
            id: r.id,
            ...(r.kind === "trace"
              ? { trace_id: r.traceId ?? undefined, upstream: r.upstream ?? undefined }
              : {}),
            ...(r.kind === "standalone" ? { standalone: true } : {}),
            ...common(r),
          }),
        ),
    };
  }

  /** Save the sidecar as it should be now; no version when it already is. */
  async write(docId: string, author: string, message: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const record = await this.d.store.doc(docId);
      const path = sidecarPath(record.doc.path);
      const entries = await this.entries(docId);
      const manifest = await this.d.store.manifest(record.head.id);
      const exists = manifest.some((f) => f.path === path);
      if (!exists && entries.waivers.length === 0 && entries.acknowledgements.length === 0) return;
      const bytes = new TextEncoder().encode(renderSidecar(entries));
      try {
        await this.d.store.write(docId, record.head.id, [{ path, bytes }], author, message);
        return;
      } catch (err) {
        // Someone saved in between: render again on the new head.
        if (!(err instanceof ApiError && err.code === "version_conflict") || attempt >= 4) throw err;
      }
    }
  }

  /**
   * What the sidecar of a version excuses among `findings` (all of the run's: an entry
   * names one finding or none, core/waivers/match.ts): the ids that stop counting, and a
   * note for each finding a hand-written (unsigned) entry names, or a legacy entry waives.
   */
  async waivedFor(
    docId: string,
    versionId: string,
    mainPath: string,
    findings: readonly WaivableFinding[],
  ): Promise<{ waived: Set<string>; notes: Map<string, string> }> {
    const waived = new Set<string>();
    const legacy = new Set<string>();
    const notes = new Map<string, string>();
    const sidecar = await this.read(versionId, mainPath);
    if (!sidecar || sidecar.waivers.length === 0) return { waived, notes };
    const ids = sidecar.waivers.map((w) => w.id).filter((id): id is string => !!id && UUID.test(id));
    const rows = ids.length ? await this.d.db.select().from(waivers).where(inArray(waivers.id, ids)) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const path = sidecarPath(mainPath);
    for (const entry of sidecar.waivers) {
      const row = entry.id ? byId.get(entry.id) : undefined;
      const signed = this.d.signer.verify(docId, entry as Record<string, unknown>);
      const honoured = signed && (!row || (row.status === "approved" && row.docId === docId));
      // The one finding the entry names (core/waivers/match.ts), if any: a signed entry's id is the service's.
      const named = namedFinding(entry, findings, signed);
      if (named.kind !== "one") continue;
      if (honoured) {
        waived.add(named.id);
        if (named.by === "text") legacy.add(named.id);
      } else
        notes.set(
          named.id,
          `A waiver for this finding is written in ${path} but not approved through spec-review, so it does not count` +
            (row?.status === "rejected"
              ? " (it was rejected)."
              : "; it counts once approved (docs/waivers.md)."),
        );
    }
    for (const id of waived) notes.delete(id);
    for (const id of legacy)
      notes.set(
        id,
        `It is waived by an entry of ${path} written before waivers carried their finding's id: ` +
          "it counts while its check, quote and section fit this finding only (docs/waivers.md).",
      );
    return { waived, notes };
  }

  /**
   * Signed entries the database does not know (a database restored from a backup older than
   * the sidecar): the service approved them once, so they come back as approved records,
   * listed and withdrawable like the others.
   */
  private async importSigned(
    ev: VersionEvent,
    sidecar: Sidecar | undefined,
    rows: readonly WaiverRow[],
    now: Date,
  ): Promise<void> {
    const known = new Set(rows.map((r) => r.id));
    const fresh = [
      ...(sidecar?.waivers ?? []).map((e) => ({ kind: "finding" as const, e })),
      ...(sidecar?.acknowledgements ?? []).map((e) => ({ kind: "ack" as const, e })),
    ].filter(
      ({ e }) =>
        !!e.id &&
        UUID.test(e.id) &&
        !known.has(e.id) &&
        this.d.signer.verify(ev.docId, e as Record<string, unknown>),
    );
    if (fresh.length === 0) return;
    const record = await this.d.store.doc(ev.docId);
    const policy = policyOf(this.d.profiles.get(record.doc.profileKey));
    for (const { kind, e } of fresh) {
      const w = e as SidecarWaiver;
      const a = e as SidecarAcknowledgement;
      const requester = e.requested_by?.trim() || "the sidecar";
      await this.d.db
        .insert(waivers)
        .values({
          id: e.id!,
          docId: ev.docId,
          bundleId: ev.bundleId,
          kind: kind === "finding" ? "finding" : a.standalone ? "standalone" : "trace",
          status: "approved",
          reason: e.reason ?? "",
          findingId: kind === "finding" && w.finding && UUID.test(w.finding) ? w.finding : null,
          checkSlug: kind === "finding" ? (w.check ?? null) : null,
          anchor:
            kind === "finding"
              ? {
                  file: w.file ?? ev.mainPath,
                  heading_path: w.section ?? [],
                  quote: w.quote ?? "",
                  prefix: "",
                  suffix: "",
                  start: 0,
                  end: 0,
                }
              : null,
          traceId: kind === "ack" ? (a.trace_id ?? null) : null,
          upstream: kind === "ack" ? (a.upstream ?? null) : null,
          profileKey: record.doc.profileKey,
          approvalsNeeded: policy.approvals,
          approvers: policy.approvers,
          approvals: (e.approved_by ?? []).map((name) => ({
            by: `sidecar:${name}`,
            name,
            at: e.approved_at ?? now.toISOString(),
          })),
          source: "sidecar",
          createdBy: `sidecar:${requester}`,
          createdByName: requester,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing();
    }
    this.approvedIn(ev.docId);
  }

  /**
   * A new version someone else wrote: unsigned entries become waiver requests (once each),
   * approved entries missing from the file are withdrawn. Answers the new requests.
   */
  async sync(ev: VersionEvent): Promise<WaiverRow[]> {
    if (ev.version.message.startsWith(MESSAGE_PREFIX)) return [];
    const sidecar = await this.read(ev.version.id, ev.mainPath);
    if (!sidecar && this.d.sole && !(await this.approvedSet()).has(ev.docId)) return [];
    if (sidecar?.problem) {
      this.d.logger.warn("sidecar unreadable; its entries are left as they were", { doc: ev.docId });
      return [];
    }
    const rows = await this.d.db.select().from(waivers).where(eq(waivers.docId, ev.docId));
    // No sidecar and nothing approved: nothing to do (most versions).
    if (!sidecar && !rows.some((r) => r.status === "approved")) return [];
    const signed = new Set<string>();
    const unsigned: Array<
      { kind: "finding"; entry: SidecarWaiver } | { kind: "ack"; entry: SidecarAcknowledgement }
    > = [];
    for (const entry of sidecar?.waivers ?? [])
      if (this.d.signer.verify(ev.docId, entry as Record<string, unknown>) && entry.id) signed.add(entry.id);
      else unsigned.push({ kind: "finding", entry });
    for (const entry of sidecar?.acknowledgements ?? [])
      if (this.d.signer.verify(ev.docId, entry as Record<string, unknown>) && entry.id) signed.add(entry.id);
      else unsigned.push({ kind: "ack", entry });

    const now = this.d.clock.now();
    // Approved entries someone took out of the file are withdrawn, by whoever wrote the version.
    const gone = rows.filter((r) => r.status === "approved" && !signed.has(r.id)).map((r) => r.id);
    if (gone.length)
      await this.d.db
        .update(waivers)
        .set({ status: "withdrawn", withdrawnBy: ev.version.created_by, updatedAt: now })
        .where(and(inArray(waivers.id, gone), eq(waivers.status, "approved")));

    await this.importSigned(ev, sidecar, rows, now);

    const created: WaiverRow[] = [];
    if (unsigned.length === 0) return created;
    const record = await this.d.store.doc(ev.docId);
    const policy = policyOf(this.d.profiles.get(record.doc.profileKey));
    for (const u of unsigned) {
      const reason = (u.entry.reason ?? "").trim();
      if ([...reason].length < MIN_REASON) continue;
      const requester = u.entry.requested_by?.trim() || "the sidecar";
      const kind = u.kind === "finding" ? "finding" : u.entry.standalone ? "standalone" : "trace";
      const same = rows.find(
        (r) =>
          r.source === "sidecar" &&
          r.kind === kind &&
          r.reason === reason &&
          (u.kind === "finding"
            ? r.checkSlug === (u.entry.check ?? null) &&
              (r.anchor?.quote ?? null) === (u.entry.quote ?? null) &&
              (r.anchor?.heading_path ?? []).join("\u0000") === (u.entry.section ?? []).join("\u0000")
            : r.traceId === (u.entry.trace_id ?? null)),
      );
      if (same) continue;
      if (kind === "trace" && !(u.entry as SidecarAcknowledgement).trace_id) continue;
      const w = u.entry as SidecarWaiver;
      const [row] = await this.d.db
        .insert(waivers)
        .values({
          id: randomUUID(),
          docId: ev.docId,
          bundleId: ev.bundleId,
          kind,
          status: "requested",
          reason,
          findingId: u.kind === "finding" && w.finding && UUID.test(w.finding) ? w.finding : null,
          checkSlug: u.kind === "finding" ? (w.check ?? null) : null,
          anchor:
            u.kind === "finding" && (w.quote !== undefined || w.section !== undefined)
              ? {
                  file: w.file ?? ev.mainPath,
                  heading_path: w.section ?? [],
                  quote: w.quote ?? "",
                  prefix: "",
                  suffix: "",
                  start: 0,
                  end: 0,
                }
              : null,
          traceId: u.kind === "ack" ? (u.entry.trace_id ?? null) : null,
          upstream: u.kind === "ack" ? (u.entry.upstream ?? null) : null,
          profileKey: record.doc.profileKey,
          approvalsNeeded: Math.max(1, policy.approvals),
          approvers: policy.approvers,
          approvals: [],
          source: "sidecar",
          // A name typed in a file proves nothing: the request is the sidecar's, in that name's words.
          createdBy: `sidecar:${requester}`,
          createdByName: requester,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      created.push(row!);
    }
    return created;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
