/**
 * Links written in a spec doc's frontmatter (contract 2.8, docs/trace.md):
 *
 * ```yaml
 * implements: product/checkout        # a bundle slug
 * references: [adr/0007-queue, https://github.com/acme/shop/issues/12]
 * links:                              # links a person confirmed (import, suggestions)
 *   - { kind: refines, target: product/payments }
 * ```
 *
 * Keys `implements`, `refines`, `references`, `supersedes`, `implemented-by` hold one
 * target or a list; a target is a bundle slug, or a URL for an external target (issue,
 * page, code). Entries of `links` are the adopted links.
 */

export const LINK_KINDS = ["implements", "refines", "references", "supersedes", "implemented-by"] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export function isLinkKind(s: string): s is LinkKind {
  return (LINK_KINDS as readonly string[]).includes(s);
}

/** Kinds whose target is upstream of the linking doc (its IDs flow down to it). */
export const UPSTREAM_KINDS: ReadonlySet<LinkKind> = new Set(["implements", "refines"]);

export interface WrittenLink {
  kind: LinkKind;
  /** The target as written, trimmed (a slug without `./` or a trailing `/`). */
  target: string;
  /** `frontmatter`: a link key; `adopted`: an entry of the `links` list. */
  origin: "frontmatter" | "adopted";
  /** A URL rather than a bundle slug. */
  external: boolean;
  /** Held by the service, not written in the doc (origin `adopted`; server/trace/held.ts). */
  held?: true;
}

/** A frontmatter link that cannot be read: the key and what is wrong. */
export interface LinkProblem {
  key: string;
  message: string;
}

const URL_RE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;

/** True when a target is a URL (`https://…`, `git+ssh://…`), not a bundle slug. */
export function isUrl(target: string): boolean {
  return URL_RE.test(target);
}

/** A slug as a bundle list names it: no `./`, no leading or trailing `/`. */
export function normalizeSlug(target: string): string {
  let s = target.trim().replace(/\\/g, "/");
  while (s.startsWith("./")) s = s.slice(2);
  s = s.replace(/^\/+|\/+$/g, "");
  return s === "" ? "." : s;
}

function targetsOf(value: unknown): { ok: string[]; bad: boolean } {
  const list = Array.isArray(value) ? value : [value];
  const ok: string[] = [];
  let bad = false;
  for (const v of list) {
    if (typeof v === "string" && v.trim() !== "") ok.push(v.trim());
    else bad = true;
  }
  return { ok, bad };
}

function link(kind: LinkKind, raw: string, origin: WrittenLink["origin"]): WrittenLink {
  const external = isUrl(raw);
  return { kind, target: external ? raw : normalizeSlug(raw), origin, external };
}

/** Every link of a frontmatter mapping, in the order written, and the entries that cannot be read. */
export function frontmatterLinks(data: Record<string, unknown>): {
  links: WrittenLink[];
  problems: LinkProblem[];
} {
  const links: WrittenLink[] = [];
  const problems: LinkProblem[] = [];
  const seen = new Set<string>();
  const add = (l: WrittenLink) => {
    const k = `${l.kind}\0${l.target}`;
    if (seen.has(k)) return;
    seen.add(k);
    links.push(l);
  };
  for (const kind of LINK_KINDS) {
    if (!(kind in data) || data[kind] === null) continue;
    const { ok, bad } = targetsOf(data[kind]);
    if (bad)
      problems.push({ key: kind, message: `\`${kind}\` must be a bundle slug, a URL, or a list of them` });
    for (const t of ok) add(link(kind, t, "frontmatter"));
  }
  const list = data["links"];
  if (list !== undefined && list !== null) {
    if (!Array.isArray(list))
      problems.push({ key: "links", message: "`links` must be a list of {kind, target}" });
    else
      list.forEach((item, i) => {
        const rec = item !== null && typeof item === "object" ? (item as Record<string, unknown>) : undefined;
        const kind = rec?.["kind"];
        const target = rec?.["target"];
        if (typeof kind !== "string" || !isLinkKind(kind))
          problems.push({
            key: `links[${i}].kind`,
            message: `link kind ${JSON.stringify(kind ?? null)} is not one of ${LINK_KINDS.join(", ")}`,
          });
        else if (typeof target !== "string" || target.trim() === "")
          problems.push({
            key: `links[${i}].target`,
            message: "a link needs a target: a bundle slug or a URL",
          });
        else add(link(kind, target.trim(), "adopted"));
      });
  }
  return { links, problems };
}

/** The external targets (URLs) among a frontmatter's links, each with its link kind. */
export function externalTargets(data: Record<string, unknown>): { rel: LinkKind; url: string }[] {
  return frontmatterLinks(data)
    .links.filter((l) => l.external)
    .map((l) => ({ rel: l.kind, url: l.target }));
}
