/**
 * Approved acknowledgements in the trace view (`GET /docs/{docId}/trace`): a downstream
 * doc's acknowledgement of an upstream trace ID turns its matrix cell `acknowledged`
 * (unless the doc covers the ID anyway), and a standalone acknowledgement of the doc fills
 * the view's `standalone` object.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import type { Db } from "../db/index.js";
import { waivers } from "../db/schema.js";
import type { TraceSchema } from "../schemas/trace.js";

type Trace = z.infer<typeof TraceSchema>;

export async function applyAcknowledgements(db: Db, docId: string, view: Trace): Promise<Trace> {
  const docIds = [...new Set([docId, ...view.matrices.flatMap((m) => m.columns.map((c) => c.id))])];
  const acks = await db
    .select()
    .from(waivers)
    .where(
      and(
        inArray(waivers.docId, docIds),
        eq(waivers.status, "approved"),
        inArray(waivers.kind, ["trace", "standalone"]),
      ),
    );
  if (acks.length === 0) return view;
  const standalone = acks.find((a) => a.kind === "standalone" && a.docId === docId);
  const matrices = view.matrices.map((m) => ({
    ...m,
    cells: m.cells.map((row, r) =>
      row.map((cell, c) => {
        if (cell.state === "covered") return cell;
        const ack = acks.find(
          (a) =>
            a.kind === "trace" &&
            a.docId === m.columns[c]!.id &&
            a.traceId === m.rows[r]!.id &&
            (a.upstream === null || a.upstream === m.upstream.slug),
        );
        return ack ? { state: "acknowledged" as const, waiver_id: ack.id, reason: ack.reason } : cell;
      }),
    ),
  }));
  return {
    ...view,
    matrices,
    ...(standalone
      ? { standalone: { reason: standalone.reason, acknowledged_by: standalone.createdByName } }
      : {}),
  };
}
