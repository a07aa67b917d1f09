/** GET /docs/{docId}/trace (contract 4.2): links, incoming links, matrices, suggested IDs. */
import type { z } from "@hono/zod-openapi";
import type { ResolvedLink } from "../../core/trace/graph.js";
import type { Db } from "../db/index.js";
import type { LinkSchema, TraceSchema } from "../schemas/trace.js";
import { externalLinkStates, uncheckedState, type ExternalLinkState } from "./external-states.js";
import type { LoadedGraph } from "./load.js";
import { applyAcknowledgements } from "../waivers/acknowledgements.js";

type Link = z.infer<typeof LinkSchema>;
type Trace = z.infer<typeof TraceSchema>;

function linkView(loaded: LoadedGraph, l: ResolvedLink, states: Map<string, ExternalLinkState>): Link {
  const view: Link = { kind: l.kind, origin: l.origin, target_kind: l.target_kind, target_ref: l.target_ref };
  if (l.to !== undefined) view.bundle = loaded.graph.docs[l.to]!.ref;
  if (l.target_kind === "external")
    Object.assign(view, { target_url: l.target_ref }, states.get(l.target_ref) ?? uncheckedState);
  // Rule links follow from the profile; the others are written in the doc, which the service writes.
  view.removable = l.origin !== "rule";
  return view;
}

/** The trace view of doc `i`; `editable` says whether the caller may edit the docs of the columns. */
export async function traceView(db: Db, loaded: LoadedGraph, i: number, editable: boolean): Promise<Trace> {
  const { graph } = loaded;
  const ref = graph.docs[i]!.ref;
  const [states, details] = await Promise.all([
    externalLinkStates(db, ref.bundle_id),
    loaded.details(graph.involved(i)),
  ]);
  const own = details.get(i)!;
  const incoming = graph.incoming(i).map(({ from, link }) => ({
    kind: link.kind,
    origin: link.origin,
    target_kind: "bundle" as const,
    target_ref: graph.docs[from]!.ref.slug,
    bundle: graph.docs[from]!.ref,
  }));
  const matrices = graph.matrices(i).map((m) => ({
    upstream: graph.docs[m.upstream]!.ref,
    rows: m.rows.map((r) => ({ id: r.id, text: r.text, anchor: r.anchor })),
    columns: m.columns.map((c) => graph.docs[c]!.ref),
    cells: m.cells,
    editable: m.columns.map(() => editable),
  }));
  const view: Trace = {
    links: graph.outgoing(i).map((l) => linkView(loaded, l, states)),
    incoming,
    matrices,
    suggestions: own.suggestions.map((s) => ({
      id: s.id,
      text: s.text,
      anchor: s.anchor,
      sections: own.sections,
    })),
    problems: graph.problems(i),
  };
  // Approved acknowledgements: `acknowledged` cells and the `standalone` object (server/waivers).
  return applyAcknowledgements(db, ref.id, view);
}
