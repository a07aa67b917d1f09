/**
 * Handoffs (docs/handoff.md): taking a packet records a handoff (refused unless the
 * verdict is a current Build Ready, or the taker acknowledges it is not); the builder's
 * reports come back against it, and a `blocked` report opens a blocking thread on the doc
 * (ThreadPort) and reaches the author's inbox.
 */
import { randomUUID } from "node:crypto";
import { count, desc, eq, inArray } from "drizzle-orm";
import { handoffReports, handoffs } from "../db/schema.js";
import type { Deps } from "../deps.js";
import { ApiError } from "../errors.js";
import { addInboxItems } from "../inbox/items.js";
import { docVerdict } from "../runs.js";
import type { Actor } from "../auth/actor.js";
import { LOCAL_ADMIN } from "../auth/actor.js";
import { buildPacket, type Packet } from "./packet.js";

export type HandoffRow = typeof handoffs.$inferSelect;

export async function takeHandoff(
  d: Deps,
  docId: string,
  body: { acknowledged?: boolean; label?: string },
  by: Actor,
): Promise<Packet> {
  const rec = await d.store.doc(docId);
  const run = (await d.runs.latestRuns([docId])).get(docId);
  const verdict = docVerdict(run, rec.head.number);
  const acknowledged = body.acknowledged === true;
  if (verdict?.result !== "build_ready" && !acknowledged)
    throw new ApiError(
      "handoff_not_ready",
      verdict
        ? `the verdict is ${verdict.result}; send acknowledged: true to take the packet anyway`
        : "the doc has no review verdict yet; send acknowledged: true to take the packet anyway",
      { verdict_result: verdict?.result ?? null },
    );
  const id = randomUUID();
  const label = body.label?.trim() ?? "";
  const packet = await buildPacket(d, rec, {
    handoffId: id,
    verdict,
    acknowledged,
    label,
    baseUrl: d.linkBase(),
  });
  await d.db.insert(handoffs).values({
    id,
    docId,
    bundleId: rec.bundle.id,
    versionId: rec.head.id,
    versionNumber: rec.head.number,
    label,
    acknowledged,
    verdict: verdict ?? null,
    createdBy: by.id,
    createdAt: d.clock.now(),
  });
  return packet;
}

export function handoffView(row: HandoffRow, reports: number) {
  return {
    id: row.id,
    doc_id: row.docId,
    version_number: row.versionNumber,
    label: row.label,
    acknowledged: row.acknowledged,
    ...(row.verdict ? { verdict_result: row.verdict.result } : {}),
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    reports,
  };
}

export async function listHandoffs(d: Deps, docId: string) {
  await d.store.doc(docId);
  const rows = await d.db
    .select()
    .from(handoffs)
    .where(eq(handoffs.docId, docId))
    .orderBy(desc(handoffs.createdAt), desc(handoffs.id));
  const counts = rows.length
    ? await d.db
        .select({ id: handoffReports.handoffId, n: count() })
        .from(handoffReports)
        .where(
          inArray(
            handoffReports.handoffId,
            rows.map((r) => r.id),
          ),
        )
        .groupBy(handoffReports.handoffId)
    : [];
  const n = new Map(counts.map((c) => [c.id, Number(c.n)]));
  return rows.map((r) => handoffView(r, n.get(r.id) ?? 0));
}

export async function reportHandoff(
  d: Deps,
  handoffId: string,
  body: { result: "built" | "partial" | "blocked"; body: string; anchor?: { heading_path: string[] } },
  by: Actor,
) {
  const [h] = await d.db.select().from(handoffs).where(eq(handoffs.id, handoffId));
  if (!h) throw new ApiError("handoff_not_found", `handoff ${handoffId} does not exist`);
  const rec = await d.store.doc(h.docId);
  const now = d.clock.now();
  let threadId: string | undefined;
  if (body.result === "blocked") {
    const opened = await d.verify.ports.threads.openBlocking({
      docId: h.docId,
      bundleId: h.bundleId,
      createdBy: by.id,
      title: `Build blocked${h.label ? ` (${h.label})` : ""}`,
      body: body.body,
      ...(body.anchor ? { anchor: { heading_path: body.anchor.heading_path } } : {}),
      handoffId: h.id,
      handoffVersion: h.versionNumber,
    });
    threadId = opened?.threadId;
    // The author learns the build is blocked (in local mode the one person is the local admin).
    const author = rec.bundle.createdBy ?? (d.mode === "local" ? LOCAL_ADMIN.id : undefined);
    if (author)
      await addInboxItems(
        d.db,
        [
          {
            userId: author,
            kind: "handoff_blocked",
            summary: `${by.name} is blocked building ${rec.bundle.title}${h.label ? ` (${h.label})` : ""}`,
            bundleId: h.bundleId,
            docId: h.docId,
            threadId: threadId ?? null,
            actorId: by.id,
          },
        ],
        now,
      );
  }
  const row = {
    id: randomUUID(),
    handoffId: h.id,
    result: body.result,
    body: body.body,
    anchor: body.anchor ?? null,
    threadId: threadId ?? null,
    createdBy: by.id,
    createdAt: now,
  };
  await d.db.insert(handoffReports).values(row);
  return {
    id: row.id,
    handoff_id: h.id,
    result: row.result,
    body: row.body,
    ...(row.anchor ? { anchor: row.anchor } : {}),
    ...(threadId ? { thread_id: threadId } : {}),
    handoff_version: h.versionNumber,
    created_by: by.id,
    created_at: now.toISOString(),
  };
}
