/**
 * The link graph of a set of bundles and the trace matrices on it (contract 2.8, 2.9).
 * Pure and synchronous: the caller hands in every bundle's links, and the IDs of the
 * bundles a matrix needs (`involved`). Cycles are found, never followed forever.
 */
import { folderOf } from "../bundle/discover.js";
import type { DefinedId, IdUse } from "./ids.js";
import { UPSTREAM_KINDS, type LinkKind, type LinkProblem, type WrittenLink } from "./links.js";

export interface DocRef {
  id: string;
  bundle_id: string;
  slug: string;
  title: string;
  profile_key: string;
}

export interface TraceDoc {
  ref: DocRef;
  /** Links its main doc's frontmatter writes. */
  links: WrittenLink[];
  problems: LinkProblem[];
  /** Its IDs and what it says of other IDs; needed only for docs a matrix shows. */
  detail?: { ids: DefinedId[]; use: IdUse };
}

export interface ResolvedLink {
  kind: LinkKind;
  origin: "frontmatter" | "rule" | "adopted";
  target_kind: "bundle" | "external";
  target_ref: string;
  /** Index of the linked doc; absent for an external target or a slug that matches no bundle. */
  to?: number;
  /** Held by the service, not written in the doc: removing it changes no file. */
  held?: true;
}

export interface GraphProblem {
  code: "link_unresolved" | "link_to_self" | "link_cycle" | "link_invalid";
  message: string;
}

export type CellState = "referenced" | "covered" | "missing";

export interface Matrix {
  /** Index of the upstream doc. */
  upstream: number;
  rows: DefinedId[];
  /** Indexes of the downstream docs. */
  columns: number[];
  cells: { state: CellState; section?: string[] }[][];
}

export class TraceGraph {
  private readonly bySlug = new Map<string, number>();
  private readonly out: ResolvedLink[][];
  private readonly downstream: Set<number>[];
  private readonly upstream: Set<number>[];

  /** @param upstreamOf the upstream profile key a profile names (the rule links) */
  constructor(
    readonly docs: readonly TraceDoc[],
    upstreamOf: (profileKey: string) => string | undefined,
  ) {
    docs.forEach((d, i) => this.bySlug.set(d.ref.slug, i));
    this.out = docs.map((d, i) => this.resolve(d, i, upstreamOf));
    this.downstream = docs.map(() => new Set<number>());
    this.upstream = docs.map(() => new Set<number>());
    const edge = (up: number, down: number) => {
      this.downstream[up]!.add(down);
      this.upstream[down]!.add(up);
    };
    this.out.forEach((links, i) => {
      for (const l of links) {
        if (l.to === undefined || l.to === i) continue;
        if (UPSTREAM_KINDS.has(l.kind)) edge(l.to, i);
        else if (l.kind === "implemented-by") edge(i, l.to);
      }
    });
  }

  indexOfSlug(slug: string): number | undefined {
    return this.bySlug.get(slug);
  }

  private resolve(d: TraceDoc, self: number, upstreamOf: (k: string) => string | undefined): ResolvedLink[] {
    const links: ResolvedLink[] = d.links.map((l) => {
      const base = {
        kind: l.kind,
        origin: l.origin,
        target_ref: l.target,
        ...(l.held ? { held: l.held } : {}),
      };
      if (l.external) return { ...base, target_kind: "external" };
      const to = this.bySlug.get(l.target);
      return to === undefined ? { ...base, target_kind: "bundle" } : { ...base, target_kind: "bundle", to };
    });
    // The profile's rule: the one bundle of the upstream type around it, unless a link names an upstream already.
    const type = upstreamOf(d.ref.profile_key);
    if (type && !links.some((l) => UPSTREAM_KINDS.has(l.kind) && l.target_kind === "bundle")) {
      const parent = folderOf(d.ref.slug);
      // Its parent bundle, or a sibling (a bundle in the same folder).
      const same = this.docs.filter(
        (o, i) =>
          i !== self &&
          o.ref.profile_key === type &&
          (o.ref.slug === parent || (folderOf(o.ref.slug) === parent && o.ref.slug !== ".")),
      );
      if (same.length === 1)
        links.push({
          kind: "implements",
          origin: "rule",
          target_kind: "bundle",
          target_ref: same[0]!.ref.slug,
          to: this.bySlug.get(same[0]!.ref.slug)!,
        });
    }
    return links;
  }

  outgoing(i: number): ResolvedLink[] {
    return this.out[i]!;
  }

  /** Links of other docs to this one, each with the linking doc's index. */
  incoming(i: number): { from: number; link: ResolvedLink }[] {
    const list: { from: number; link: ResolvedLink }[] = [];
    this.out.forEach((links, from) => {
      if (from !== i) for (const link of links) if (link.to === i) list.push({ from, link });
    });
    return list;
  }

  /** Docs that implement or refine doc `i` (or that `i` names as implemented-by), by slug. */
  downstreamOf(i: number): number[] {
    return [...this.downstream[i]!].sort((a, b) => this.cmp(a, b));
  }

  /** Docs that doc `i` implements or refines, by slug. */
  upstreamOf(i: number): number[] {
    return [...this.upstream[i]!].sort((a, b) => this.cmp(a, b));
  }

  private cmp(a: number, b: number): number {
    const x = this.docs[a]!.ref.slug;
    const y = this.docs[b]!.ref.slug;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /** Docs whose IDs the matrices of doc `i` show: itself, its upstreams and every downstream of those. */
  involved(i: number): number[] {
    const set = new Set<number>([i, ...this.downstreamOf(i)]);
    for (const u of this.upstreamOf(i)) {
      set.add(u);
      for (const d of this.downstreamOf(u)) set.add(d);
    }
    return [...set];
  }

  /** A chain of upstream links from `i` back to `i`, as slugs; undefined when there is none. */
  cycleThrough(i: number): string[] | undefined {
    const parent = new Map<number, number>();
    const queue = [i];
    const seen = new Set<number>([i]);
    while (queue.length > 0) {
      const at = queue.shift()!;
      for (const up of this.upstreamOf(at)) {
        if (up === i) {
          const path = [i];
          for (let n: number | undefined = at; n !== undefined && n !== i; n = parent.get(n)) path.push(n);
          path.push(i);
          return path.reverse().map((n) => this.docs[n]!.ref.slug);
        }
        if (seen.has(up)) continue;
        seen.add(up);
        parent.set(up, at);
        queue.push(up);
      }
    }
    return undefined;
  }

  /** What is wrong with the links of doc `i`. */
  problems(i: number): GraphProblem[] {
    const d = this.docs[i]!;
    const out: GraphProblem[] = d.problems.map((p) => ({
      code: "link_invalid",
      message: `${p.key}: ${p.message}`,
    }));
    for (const l of this.out[i]!) {
      if (l.target_kind !== "bundle") continue;
      if (l.to === i)
        out.push({ code: "link_to_self", message: `\`${l.kind}: ${l.target_ref}\` links the doc to itself` });
      else if (l.to === undefined)
        out.push({ code: "link_unresolved", message: `\`${l.kind}: ${l.target_ref}\` names no bundle` });
    }
    const cycle = this.cycleThrough(i);
    if (cycle) out.push({ code: "link_cycle", message: `links form a cycle: ${cycle.join(" implements ")}` });
    return out;
  }

  /**
   * The matrices of doc `i` (2.9): one of its own IDs when other docs implement it, and
   * one for each doc it implements. Docs without `detail` count as having no IDs.
   */
  matrices(i: number): Matrix[] {
    const list: Matrix[] = [];
    if (this.downstreamOf(i).length > 0) list.push(this.matrix(i));
    for (const u of this.upstreamOf(i)) list.push(this.matrix(u));
    return list;
  }

  matrix(u: number): Matrix {
    const columns = this.downstreamOf(u);
    const rows = this.docs[u]!.detail?.ids ?? [];
    const cells = rows.map((row) =>
      columns.map((c) => {
        const use = this.docs[c]!.detail?.use;
        const section = use?.covered.get(row.id);
        if (section) return { state: "covered" as const, section };
        return { state: use?.mentioned.has(row.id) ? ("referenced" as const) : ("missing" as const) };
      }),
    );
    return { upstream: u, rows, columns, cells };
  }
}

/** A cycle among `from -> to` edges (as the nodes along it, first repeated at the end); undefined when none. */
export function cycleIn(edges: readonly (readonly [string, string])[]): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === "done") return undefined;
    if (state.get(n) === "open") return [...path.slice(path.indexOf(n)), n];
    state.set(n, "open");
    path.push(n);
    for (const m of next.get(n) ?? []) {
      const found = visit(m);
      if (found) return found;
    }
    path.pop();
    state.set(n, "done");
    return undefined;
  };
  for (const n of next.keys()) {
    const found = visit(n);
    if (found) return found;
  }
  return undefined;
}
