/**
 * Link suggestions (contract 4.2, POST /links/suggest): a doc whose profile names an
 * upstream type gets a suggested link when exactly one other doc in its folder has
 * that type. Docs with an empty profile are not specs and neither link nor are linked.
 */
import { folderOf } from "../bundle/discover.js";

export interface DocForLinks {
  path: string;
  /** Profile key; "" when the file is not a spec. */
  profile: string;
}

export interface SuggestedLink {
  from: string;
  to: string;
  kind: "implements";
}

/** @param upstreamOf the upstream type a profile names, if any */
export function suggestLinks(
  docs: readonly DocForLinks[],
  upstreamOf: (profile: string) => string | undefined,
): SuggestedLink[] {
  const byFolderAndType = new Map<string, string[]>();
  for (const d of docs) {
    if (!d.profile) continue;
    const k = `${folderOf(d.path)}\0${d.profile}`;
    const list = byFolderAndType.get(k) ?? [];
    list.push(d.path);
    byFolderAndType.set(k, list);
  }
  const out: SuggestedLink[] = [];
  for (const d of docs) {
    if (!d.profile) continue;
    const upstream = upstreamOf(d.profile);
    if (!upstream) continue;
    const candidates = (byFolderAndType.get(`${folderOf(d.path)}\0${upstream}`) ?? []).filter(
      (p) => p !== d.path,
    );
    if (candidates.length === 1) out.push({ from: d.path, to: candidates[0]!, kind: "implements" });
  }
  return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}
