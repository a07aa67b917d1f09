/**
 * The known defects of the lint eval (docs/eval.md), applied one at a time to a doc:
 * each mutation is the doc's text with one defect and the range where it sits.
 */
import { searchScope } from "../core/lint/checks/forbidden-pattern.js";
import { NOT_REQUIREMENTS } from "../core/lint/checks/contradiction.js";
import { prefixAlternatives } from "../core/lint/checks/trace-id.js";
import { claimsOf } from "../core/lint/claims.js";
import {
  docAnchorRange,
  firstLineRange,
  sectionContent,
  sectionScope,
  sectionsMatching,
  statementsIn,
  stripLead,
} from "../core/lint/helpers.js";
import { lowerLevel, type Level } from "../core/lint/types.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import type { Profile, ProfileCheck } from "../core/profile/schema.js";

export const DEFECT_KINDS = [
  "delete-design",
  "tbd-in-requirement",
  "break-link",
  "strip-numbers",
  "duplicate-id",
  "empty-section",
  "placeholder",
  "contradict",
] as const;
export type DefectKind = (typeof DEFECT_KINDS)[number];

export interface Mutation {
  kind: DefectKind;
  /** The doc's text with the defect. */
  text: string;
  /** Char range of the defect in `text`. */
  site: [number, number];
  /** The level the profile gives the check that should catch it (after adoption). */
  expected: Level;
  /** The check expected to catch it, for reports. */
  check: string;
  /** What was changed, in words. */
  note: string;
}

/** The level an entry reports at for this doc. */
function effective(entry: ProfileCheck, adopting: boolean): Level {
  return adopting && entry.relaxed ? lowerLevel(entry.level) : entry.level;
}

function paramsOf<T>(entry: ProfileCheck): T {
  return (entry.params ?? {}) as T;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const NUMBER_WITH_UNIT =
  /(?<![\p{L}\p{N}_.-])\d[\d,.]*(?:st|nd|rd|th)?(?:\s?(?:%|ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|hours?|h|days?|weeks?|months?|years?|[KMGT]i?B|bytes?|requests?|req\/s|rps|qps|times|x))?(?![\p{L}\p{N}])/gu;

function replaceRange(text: string, s: number, e: number, by: string): string {
  return text.slice(0, s) + by + text.slice(e);
}

/** Insert `words` at the end of the first line of the first paragraph of `blocks` that has a few words. */
function insertIntoParagraph(
  doc: MarkdownDoc,
  inScope: (section: number) => boolean,
  words: string,
): { text: string; site: [number, number] } | undefined {
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph" || !inScope(b.section)) continue;
    if (sectionContent(doc, doc.sections[b.section]!, 1).words === 0) continue;
    const [, e] = firstLineRange(doc.text, b.charStart, b.charEnd);
    const insert = ` ${words}`;
    return { text: replaceRange(doc.text, e, e, insert), site: [e + 1, e + insert.length] };
  }
  return undefined;
}

/** The defects that can be applied to a doc under a profile, one per kind at most. */
export function mutations(doc: MarkdownDoc, file: string, profile: Profile, adopting: boolean): Mutation[] {
  const out: Mutation[] = [];
  const text = doc.text;
  const requiredSections = profile.checks.filter((c) => c.kind === "required-section");
  const main = requiredSections.find((c) => c.level === "MUST");
  const mainPattern = main ? paramsOf<{ section: string }>(main).section : undefined;

  // delete-design
  if (main && mainPattern) {
    const found = sectionsMatching(doc, mainPattern);
    const outer = found.filter(
      (s) => !found.some((o) => o !== s && o.charStart <= s.charStart && s.charEnd <= o.charEnd),
    );
    if (outer.length > 0) {
      let t = text;
      for (const s of [...outer].sort((a, b) => b.charStart - a.charStart))
        t = replaceRange(t, s.charStart, s.charEnd, "");
      out.push({
        kind: "delete-design",
        text: t,
        site: docAnchorRange(parseMarkdown(t)),
        expected: effective(main, adopting),
        check: main.slug,
        note: `deleted ${outer.map((s) => `'${s.title}'`).join(", ")}`,
      });
    }
  }

  // tbd-in-requirement
  const undecided = profile.checks.find(
    (c) =>
      c.kind === "forbidden-pattern" &&
      c.level === "MUST" &&
      paramsOf<{ phrases?: string[] }>(c).phrases?.some((p) => p.toUpperCase() === "TBD"),
  );
  if (undecided) {
    const p = paramsOf<{ sections?: string[]; exclude_sections?: string[] }>(undecided);
    const scope = searchScope(doc, p.sections ?? [], p.exclude_sections ?? []);
    const r = insertIntoParagraph(
      doc,
      (s) => scope[s] === true && doc.sections[s]!.level > 0,
      "The exact value is TBD.",
    );
    if (r)
      out.push({
        kind: "tbd-in-requirement",
        ...r,
        expected: effective(undecided, adopting),
        check: undecided.slug,
        note: "added 'The exact value is TBD.'",
      });
  }

  // break-link
  const links = profile.checks.find((c) => c.kind === "links-resolve");
  if (links) {
    const notes = new Set<string>();
    for (const m of text.matchAll(/^[ ]{0,3}\[\^[^\]\n]+\]:[ \t]*<?([^\s>]+)/gm)) notes.add(m[1]!);
    const candidates = doc.links.filter(
      (l) =>
        l.href !== "" &&
        !SCHEME.test(l.href) &&
        !l.href.startsWith("//") &&
        !notes.has(l.href) &&
        text.slice(l.charStart, l.charEnd) === l.href,
    );
    const file_ = candidates.find((l) => !l.href.startsWith("#"));
    const pick = file_ ?? candidates.find((l) => l.href.length > 1);
    if (pick) {
      const href = pick.href;
      let broken: string;
      if (href.startsWith("#")) broken = `${href}-renamed`;
      else {
        const [path, rest] = [href.replace(/[?#].*$/, ""), href.slice(href.replace(/[?#].*$/, "").length)];
        const dot = path.lastIndexOf(".");
        broken =
          dot > path.lastIndexOf("/")
            ? `${path.slice(0, dot)}-renamed${path.slice(dot)}${rest}`
            : `${path.replace(/\/$/, "")}-renamed${rest}`;
      }
      out.push({
        kind: "break-link",
        text: replaceRange(text, pick.charStart, pick.charEnd, broken),
        site: [pick.charStart, pick.charStart + broken.length],
        expected: effective(links, adopting),
        check: links.slug,
        note: `'${href}' -> '${broken}'`,
      });
    }
  }

  // strip-numbers
  const measurable = profile.checks.find((c) => c.kind === "measurable");
  if (measurable) {
    const scope = sectionScope(doc, paramsOf<{ sections: string[] }>(measurable).sections);
    for (const st of statementsIn(doc, scope)) {
      NUMBER_WITH_UNIT.lastIndex = 0;
      if (!NUMBER_WITH_UNIT.test(st.source)) continue;
      NUMBER_WITH_UNIT.lastIndex = 0;
      const stripped = st.source.replace(NUMBER_WITH_UNIT, "").replace(/[ \t]{2,}/g, " ");
      out.push({
        kind: "strip-numbers",
        text: replaceRange(text, st.charStart, st.charEnd, stripped),
        site: [st.charStart, st.charStart + stripped.length],
        expected: effective(measurable, adopting),
        check: measurable.slug,
        note: `numbers taken out of '${firstLine(st.source)}'`,
      });
      break;
    }
  }

  // duplicate-id
  const dup = profile.checks.find(
    (c) => c.kind === "trace-id" && paramsOf<{ unique?: boolean }>(c).unique !== false,
  );
  if (dup) {
    const p = paramsOf<{ prefixes?: string[]; sections?: string[] }>(dup);
    const prefixes = p.prefixes && p.prefixes.length > 0 ? p.prefixes : profile.verify_prefixes;
    if (prefixes.length > 0) {
      const idStart = new RegExp(`^(?:${prefixAlternatives(prefixes)})-[\\p{L}\\p{N}_]+`, "u");
      const scope =
        p.sections && p.sections.length > 0
          ? sectionScope(doc, p.sections)
          : new Set(doc.sections.map((s) => s.index));
      const ids: { id: string; at: number }[] = [];
      for (const st of statementsIn(doc, scope, idStart)) {
        const m = idStart.exec(stripLead(st.source));
        if (m) ids.push({ id: m[0], at: st.charStart + st.source.indexOf(m[0]) });
      }
      const first = ids[0];
      const second = ids.find((x) => first && x.id !== first.id);
      if (first && second)
        out.push({
          kind: "duplicate-id",
          text: replaceRange(text, second.at, second.at + second.id.length, first.id),
          site: [second.at, second.at + first.id.length],
          expected: effective(dup, adopting),
          check: dup.slug,
          note: `'${second.id}' renamed to '${first.id}'`,
        });
    }
  }

  // empty-section
  const hasChild = new Set(doc.sections.map((s) => s.parent));
  outer: for (const entry of requiredSections) {
    if (entry === main) continue;
    const { section, min_words } = paramsOf<{ section: string; min_words?: number }>(entry);
    if (min_words === 0) continue;
    for (const s of sectionsMatching(doc, section)) {
      if (hasChild.has(s.index) || !sectionContent(doc, s, min_words ?? 2).hasContent) continue;
      // Another section answering to the same role keeps the role filled: not this one.
      if (sectionsMatching(doc, section).length > 1) continue outer;
      const t = replaceRange(text, s.contentCharStart, s.charEnd, "\n");
      out.push({
        kind: "empty-section",
        text: t,
        site: firstLineRange(t, s.charStart, s.contentCharStart),
        expected: effective(entry, adopting),
        check: entry.slug,
        note: `emptied '${s.title}'`,
      });
      break outer;
    }
  }

  // placeholder
  const placeholder = profile.checks.find(
    (c) =>
      c.kind === "forbidden-pattern" &&
      (paramsOf<{ patterns?: string[] }>(c).patterns?.length ?? 0) > 0 &&
      c.slug.includes("placeholder"),
  );
  if (placeholder && profile.templateText) {
    const patterns = paramsOf<{ patterns: string[] }>(placeholder).patterns;
    const body = profile.templateText.replace(/^---[\s\S]*?\n---\n/, "");
    let sample: string | undefined;
    for (const p of patterns) {
      const m = new RegExp(p, "u").exec(body);
      if (m && (!sample || m.index < body.indexOf(sample))) sample = m[0];
    }
    if (sample) {
      const mainSections = new Set(mainPattern ? [...sectionScope(doc, [mainPattern])] : []);
      const r =
        insertIntoParagraph(doc, (s) => mainSections.has(s), sample) ??
        insertIntoParagraph(doc, (s) => doc.sections[s]!.level > 0, sample);
      if (r)
        out.push({
          kind: "placeholder",
          ...r,
          expected: effective(placeholder, adopting),
          check: placeholder.slug,
          note: `left '${sample}'`,
        });
    }
  }
  const c = contradiction(doc, profile, adopting);
  if (c) out.push(c);
  return out;
}

/** Another value for a number as written: 30 -> 60, 0 -> 1, 99.9 -> 99.4. */
function otherValue(n: string): string {
  if (/^\d+$/.test(n)) return String(Number(n) * 2 || 1);
  const last = Number(n[n.length - 1]);
  return n.slice(0, -1) + String((last + 5) % 10);
}

/**
 * contradict: the first requirement sentence with a quantity that the profile's
 * contradiction check reads is said again at the end of its section, with another value
 * ("Logs MUST be kept for 30 days." ... "Logs MUST be kept for 60 days.").
 */
function contradiction(doc: MarkdownDoc, profile: Profile, adopting: boolean): Mutation | undefined {
  const entry = profile.checks.find((c) => c.kind === "contradiction");
  if (!entry) return undefined;
  const p = paramsOf<{ sections?: string[]; exclude_sections?: string[] }>(entry);
  const scope = searchScope(doc, ["*"], p.exclude_sections ?? NOT_REQUIREMENTS);
  const requirements = sectionScope(doc, p.sections ?? []);
  const claim = claimsOf(doc, (s) => scope[s] === true && doc.sections[s]!.level > 0, requirements).find(
    (c) => c.quantities.length > 0,
  );
  if (!claim) return undefined;
  const q = claim.quantities[0]!;
  const written = /\d[\d,]*(?:\.\d+)?/.exec(doc.text.slice(q.start, q.end))!;
  const numStart = q.start + written.index;
  const changed = otherValue(written[0].replace(/,/g, ""));
  const sentence =
    doc.text.slice(claim.start, numStart) + changed + doc.text.slice(numStart + written[0].length, claim.end);
  const section = doc.sections[claim.section]!;
  let at = section.ownCharEnd;
  while (at > section.contentCharStart && /\s/.test(doc.text[at - 1]!)) at--;
  const eol = doc.text.includes("\r\n") ? "\r\n" : "\n";
  const insert = `${eol}${eol}${sentence.replace(/\r?\n\s*/g, " ")}`;
  return {
    kind: "contradict",
    text: replaceRange(doc.text, at, at, insert),
    site: [at + 2 * eol.length, at + insert.length],
    expected: effective(entry, adopting),
    check: entry.slug,
    note: `'${firstLine(sentence)}' said again with ${changed}`,
  };
}

function firstLine(s: string): string {
  const l = s.split("\n")[0]!.trim();
  return l.length > 60 ? `${l.slice(0, 57)}...` : l;
}
