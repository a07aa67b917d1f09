/**
 * A folder of realistic bundles for the store benchmark: each bundle is a folder with
 * one typed spec doc (frontmatter, headings, lists, a table, a code block) of a few KB
 * and an asset or two (an SVG diagram, sometimes a CSV or a JSON example).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Deterministic pseudo-random numbers (mulberry32), so every run serves the same corpus. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const WORDS =
  "the service request user ticket search index latency budget queue worker schema field value tenant account session token cache region replica shard event stream batch retry timeout limit quota page cursor result error status owner team review build deploy rollout metric alert dashboard storage record version migration client server gateway endpoint payload header contract policy access role audit log trace span incident".split(
    " ",
  );
export const KEYWORDS = ["MUST", "SHOULD", "MAY", "MUST NOT"];
const AREAS = [
  "checkout",
  "search",
  "billing",
  "identity",
  "catalog",
  "payments",
  "notifications",
  "reports",
];
const SECTIONS = [
  "Problem",
  "Goals",
  "Non-goals",
  "Users",
  "Requirements",
  "Acceptance criteria",
  "Success metrics",
  "Risks",
  "Open questions",
];

export interface Corpus {
  /** Bundle slugs (folder paths relative to the corpus root). */
  slugs: string[];
  /** Name of the spec doc in every bundle. */
  docName: string;
  bytes: number;
}

function words(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!);
  return out.join(" ");
}

function sentence(rand: () => number): string {
  const s = words(rand, 8 + Math.floor(rand() * 10));
  return s[0]!.toUpperCase() + s.slice(1) + ".";
}

/** A spec doc of about `kb` KB (prd, with the usual sections). */
export function specDoc(rand: () => number, title: string, code: string, kb: number): string {
  const parts: string[] = [
    `---\ntype: prd\nsize: medium\ntitle: ${title}\nowner: team-${Math.floor(rand() * 20)}\n---\n`,
    `# ${title}\n`,
  ];
  let req = 1;
  const length = () => parts.reduce((n, p) => n + p.length + 1, 0);
  for (let round = 0; length() < kb * 1024; round++) {
    for (const heading of SECTIONS) {
      parts.push(`## ${heading}${round > 0 ? ` (${round + 1})` : ""}\n`);
      parts.push(`${sentence(rand)} ${sentence(rand)} ${sentence(rand)}\n`);
      if (heading === "Requirements" || heading === "Goals") {
        for (let i = 0; i < 4; i++) {
          const kw = KEYWORDS[Math.floor(rand() * KEYWORDS.length)]!;
          parts.push(`- ${code}-${req++}: The ${words(rand, 2)} ${kw} ${words(rand, 7)}.`);
        }
        parts.push("");
      } else if (heading === "Success metrics") {
        parts.push("| Metric | Today | Target |\n| --- | --- | --- |");
        for (let i = 0; i < 3; i++)
          parts.push(
            `| ${words(rand, 2)} | ${Math.floor(rand() * 900)} ms | ${Math.floor(rand() * 300)} ms |`,
          );
        parts.push("");
      } else if (heading === "Acceptance criteria") {
        for (let i = 0; i < 3; i++)
          parts.push(`${i + 1}. Given ${words(rand, 4)}, when ${words(rand, 3)}, then ${words(rand, 5)}.`);
        parts.push("");
      } else if (heading === "Users") {
        parts.push(
          "```json\n" +
            JSON.stringify({ user: words(rand, 1), role: words(rand, 1), limit: 25 }, null, 2) +
            "\n```\n",
        );
      }
      if (length() >= kb * 1024) break;
    }
  }
  parts.push(`See the [flow diagram](flow.svg).\n`);
  return parts.join("\n");
}

function svg(rand: () => number, title: string): string {
  const boxes = Array.from(
    { length: 4 },
    (_, i) =>
      `  <rect x="${10 + i * 120}" y="20" width="100" height="40" fill="#eef"/><text x="${20 + i * 120}" y="45">${words(rand, 1)}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="500" height="80"><title>${title}</title>\n${boxes.join("\n")}\n</svg>\n`;
}

/**
 * Writes `count` bundles under `root`: `<area>/<area>-<n>/spec.md` plus `flow.svg`, and
 * in every third bundle a `data/sample.csv`.
 */
export function generateCorpus(root: string, count: number, kb = 4, seed = 42): Corpus {
  const rand = rng(seed);
  const slugs: string[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const area = AREAS[i % AREAS.length]!;
    const slug = `${area}/${area}-${String(i).padStart(4, "0")}`;
    const dir = join(root, slug);
    mkdirSync(dir, { recursive: true });
    const title = `${area[0]!.toUpperCase()}${area.slice(1)} ${words(rand, 2)} ${i}`;
    const doc = specDoc(rand, title, area.slice(0, 3).toUpperCase(), kb);
    const picture = svg(rand, title);
    writeFileSync(join(dir, "spec.md"), doc);
    writeFileSync(join(dir, "flow.svg"), picture);
    bytes += doc.length + picture.length;
    if (i % 3 === 0) {
      mkdirSync(join(dir, "data"));
      const csv = [
        "metric,today,target",
        ...Array.from(
          { length: 20 },
          () => `${words(rand, 1)},${Math.floor(rand() * 900)},${Math.floor(rand() * 300)}`,
        ),
      ].join("\n");
      writeFileSync(join(dir, "data", "sample.csv"), csv + "\n");
      bytes += csv.length + 1;
    }
    slugs.push(slug);
  }
  return { slugs, docName: "spec.md", bytes };
}
