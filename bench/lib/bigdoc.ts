/**
 * Large generated spec docs for the heavy-work benchmark and its ratio tests: many
 * sections with headings at several levels (repeated titles too), paragraphs with
 * links, emphasis, code spans and emoji, bullet and ordered lists (nested), fenced
 * code, tables, a blockquote, an HTML comment, CRLF line ends in parts of the text,
 * and `Assumption:` sentences. Deterministic for a seed.
 */
import { rng, WORDS, KEYWORDS } from "./corpus.js";

const TITLES = [
  "Overview",
  "Goals",
  "Requirements",
  "Design",
  "API",
  "Risks",
  "Rollout",
  "Open questions",
  "Alternatives",
  "Metrics",
];
const EMOJI = ["🚀", "✅", "⚠️", "🔒", "📈", "👩‍💻", "🇩🇪", "é", "日本語"];

export interface BigDocOptions {
  /** Number of headings (sections besides the root). */
  sections: number;
  seed?: number;
  /** Every how many sections one uses CRLF line ends (0: never). */
  crlfEvery?: number;
}

/** A spec doc with `sections` headings, about 80 bytes a section (20,000 sections: about 1.6 MB). */
export function bigDoc(opts: BigDocOptions): string {
  const rand = rng(opts.seed ?? 7);
  const crlfEvery = opts.crlfEvery ?? 7;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const words = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(pick(WORDS));
    return out.join(" ");
  };
  const sentence = () => {
    const s = words(6 + Math.floor(rand() * 8));
    return s[0]!.toUpperCase() + s.slice(1) + ".";
  };
  const parts: string[] = [
    "---\ntype: prd\nsize: large\ntitle: Generated large spec\nowner: team-perf\n---\n",
    "# Generated large spec\n",
    `${sentence()} ${sentence()}\n`,
  ];
  let level = 1;
  let req = 1;
  for (let i = 0; i < opts.sections; i++) {
    // Walk the levels: deeper, same or back up, 2..5.
    const r = rand();
    level =
      r < 0.3 ? Math.min(5, level + 1) : r < 0.6 ? level : Math.max(2, level - 1 - Math.floor(rand() * 2));
    if (level < 2) level = 2;
    const title = `${pick(TITLES)}${rand() < 0.5 ? ` ${i}` : ""}${rand() < 0.1 ? ` ${pick(EMOJI)}` : ""}`;
    const lines: string[] = [`${"#".repeat(level)} ${title}`, ""];
    // About 70 bytes of text a section on average, as in long specs written in many small
    // sections; every few sections something more than a sentence.
    const kind = i % 24;
    if (kind % 4 === 1) lines.push(`The ${words(2)} ${pick(KEYWORDS)} ${words(2)} ${pick(EMOJI)}.`);
    else if (kind % 4 === 3)
      lines.push(
        `See [the ${pick(WORDS)}](#${pick(TITLES).toLowerCase().replace(/ /g, "-")}) and \`${pick(WORDS)}_${i}\`.`,
      );
    else lines.push(sentence());
    if (kind === 0) {
      lines.push("");
      for (let k = 0; k < 2; k++)
        lines.push(`- REQ-${req++}: The ${words(2)} ${pick(KEYWORDS)} ${words(3)}.`);
      lines.push(`  - nested *${words(2)}* item`);
    } else if (kind === 4) {
      lines.push("", "```ts", `const ${pick(WORDS)}${i} = ${Math.floor(rand() * 1000)};`, "```");
    } else if (kind === 8) {
      lines.push("", "| Metric | Today | Target |", "| --- | --- | --- |");
      lines.push(`| ${words(2)} | ${Math.floor(rand() * 900)} ms | ${Math.floor(rand() * 300)} ms |`);
    } else if (kind === 12) {
      lines.push("", `1. Given ${words(3)}, then ${words(3)}.`, `2. **${words(2)}** ${words(2)}.`);
    } else if (kind === 16) {
      lines.push("", `Assumption: the ${words(2)} stays under ${Math.floor(rand() * 100)} ms.`);
    } else if (kind === 20) {
      lines.push("", `> ${sentence()}`, "", `<!-- ${words(3)} -->`);
    }
    lines.push("");
    const eol = crlfEvery > 0 && i % crlfEvery === crlfEvery - 1 ? "\r\n" : "\n";
    parts.push(lines.join(eol));
  }
  return parts.join("\n");
}

/**
 * The next version of a generated doc: every 20th section's first sentence reworded, a
 * line added to every 50th, and every 97th section removed, so the amount of change
 * grows with the doc as it does when a team edits a long spec.
 */
export function editDoc(text: string): string {
  const parts = text.split(/(?=^#{1,6} )/m);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i]!;
    if (i > 0 && i % 97 === 0) continue;
    if (i % 20 === 5) p = p.replace(/\.( |$)/m, ", as revised.$1");
    if (i % 50 === 7) p = p.replace(/\n/, "\nAdded in review: the owner MUST sign off.\n");
    out.push(p);
  }
  return out.join("");
}
