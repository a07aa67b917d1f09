/**
 * npm run bench:lint
 *
 * 1. Generates a corpus in a temp folder, one bundle per doc: by default 676 enhancement
 *    proposals in the KEP shape (a README.md of about 10 KB with the KEP's sections, its
 *    production-readiness questionnaire, a table of contents of #fragment links, and a
 *    kep.yaml beside it); with --shape mixed, 2,000 PRDs, designs, API specs and ADRs.
 *    Then times in one run:
 *    - `spec-review lint <corpus>` (the CLI as a subprocess, via tsx; with --built from dist/)
 *    - `markdownlint-cli2 "**\/*.md"` with its default rules, over the same files
 *    and prints both wall times and the ratio (aim: ours <= 0.15x, issue 29).
 * 2. Re-lints one 100 KB doc in process after a one-line change, many times, and prints
 *    the p50 and p95 (aim: p50 < 20 ms).
 *
 * Options: --shape kep|mixed (default kep), --docs N (default 676 for kep, 2000 for mixed), --kb N (size per doc, default 10), --keep (keep the
 * corpus), --built (time dist/cli/main.js instead of the source).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { fsProfileSource } from "../cli/lint-fs.js";
import { lintBundle } from "../core/lint/engine.js";
import { loadProfiles } from "../core/profile/load.js";
import { packageRoot } from "../server/paths.js";
import { KEYWORDS, WORDS, rng } from "./lib/corpus.js";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "kep" },
    docs: { type: "string" },
    kb: { type: "string", default: "10" },
    keep: { type: "boolean", default: false },
    built: { type: "boolean", default: false },
  },
});
const SHAPE = values.shape === "mixed" ? "mixed" : "kep";
const DOCS = Number(values.docs ?? (SHAPE === "kep" ? 676 : 2000));
const KB = Number(values.kb);
const root = packageRoot();

const TYPES = ["prd", "design", "api", "adr"] as const;
const SECTIONS: Record<(typeof TYPES)[number] | "kep", string[]> = {
  kep: [
    "Summary",
    "Motivation",
    "Proposal",
    "Design Details",
    "Production Readiness Review Questionnaire",
    "Implementation History",
    "Drawbacks",
    "Alternatives",
  ],
  prd: [
    "Summary",
    "Problem",
    "Goals",
    "Non-goals",
    "Users",
    "Requirements",
    "Acceptance criteria",
    "Success metrics",
  ],
  design: [
    "Context",
    "Goals and non-goals",
    "Proposed design",
    "Data model",
    "Interfaces",
    "Design decisions",
    "Constraints",
    "Alternatives considered",
    "Risks and failure modes",
    "Security and privacy",
    "Test plan",
    "Rollout",
  ],
  api: [
    "Overview",
    "Authentication",
    "Endpoints",
    "Errors",
    "Pagination",
    "Rate limits",
    "Versioning",
    "Requirements",
  ],
  adr: ["Context", "Decision drivers", "Considered options", "Decision", "Consequences"],
};

/** Subsections the KEP template puts under some sections. */
const KEP_SUBSECTIONS: Record<string, string[]> = {
  Motivation: ["Goals", "Non-Goals"],
  Proposal: ["User Stories", "Risks and Mitigations"],
  "Design Details": ["Test Plan", "Graduation Criteria", "Upgrade / Downgrade Strategy"],
  "Production Readiness Review Questionnaire": [
    "Feature Enablement and Rollback",
    "Rollout, Upgrade and Rollback Planning",
    "Monitoring Requirements",
    "Scalability",
  ],
};

function makeDoc(i: number, bytes: number, kep = false): { type: string; text: string } {
  const r = rng(i + 1);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const sentence = (n = 8 + Math.floor(r() * 14)) => {
    const w = Array.from({ length: n }, () => pick(WORDS));
    w[0] = w[0]![0]!.toUpperCase() + w[0]!.slice(1);
    if (r() < 0.03) w.splice(3, 0, pick(["TBD", "etc.", "various", "fast"]));
    return `${w.join(" ")}.`;
  };
  const type = kep ? "kep" : TYPES[i % TYPES.length]!;
  if (kep) {
    const toc = SECTIONS.kep.map(
      (t) =>
        `- [${t}](#${t
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, "")
          .replace(/ /g, "-")})`,
    );
    const out: string[] = [
      `---\ntype: kep\n---\n`,
      `<!--\n**Note:** remove these comments when the KEP is complete.\n-->\n# KEP-${1000 + i}: Generated enhancement ${i}\n`,
      `<!-- toc -->\n${toc.join("\n")}\n<!-- /toc -->\n`,
      `- Tracking issue: https://github.com/example-org/enhancements/issues/${1000 + i}\n`,
    ];
    let size = out.join("\n").length;
    let round = 0;
    while (size < bytes) {
      for (const title of SECTIONS.kep) {
        const parts = [round === 0 ? `## ${title}\n` : `## ${title} (continued ${round})\n`];
        parts.push(`${sentence()} ${sentence()} ${sentence()}\n`);
        if (r() < 0.2) parts.push(`<!-- ${sentence()} ${sentence()} -->\n`);
        for (const sub of round === 0 ? (KEP_SUBSECTIONS[title] ?? []) : []) {
          parts.push(`### ${sub}\n`, `${sentence()} ${sentence()}\n`);
          if (/Production|Rollback|Monitoring|Scalability/.test(title + sub))
            parts.push(
              `###### ${sentence(6).slice(0, -1)}?\n`,
              `${sentence()} Within ${1 + Math.floor(r() * 90)} seconds.\n`,
            );
          if (r() < 0.4) parts.push(`- [x] ${sentence()}\n- [ ] ${sentence()}\n`);
          if (r() < 0.2) parts.push("```yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n```\n");
        }
        if (r() < 0.3)
          parts.push(
            `| Stage | Criteria |\n|---|---|\n| Alpha | ${sentence(6)} |\n| Beta | ${sentence(6)} |\n`,
          );
        if (r() < 0.05)
          parts.push(
            `See [KEP-${999 + i}](../${999 + i}-other/README.md) and [^${i}].\n\n[^${i}]: ${sentence()}\n`,
          );
        const chunk = parts.join("\n");
        out.push(chunk);
        size += chunk.length + 1;
        if (size >= bytes) break;
      }
      round++;
    }
    return { type, text: `${out.join("\n")}\n` };
  }
  const out: string[] = [
    `---\ntype: ${type}\nsize: standard\ntitle: Generated spec ${i}\nowner: Owner ${i % 37}\nauthors: [A, B]\napi_version: "1.0"\nstatus: accepted\ndate: 2026-01-01\ndeciders: [A]\n---\n`,
    `# Generated spec ${i}\n`,
  ];
  let req = 1;
  let size = out.join("\n").length;
  let round = 0;
  while (size < bytes) {
    for (const title of SECTIONS[type]) {
      const heading = round === 0 ? `## ${title}\n` : `## ${title} (part ${round + 1})\n`;
      const parts: string[] = [heading];
      parts.push(
        `${sentence()} ${sentence()} ${sentence()} [ref](#${title.toLowerCase().replace(/\s+/g, "-")})\n`,
      );
      const roll = r();
      if (/Requirements|Constraints|Design decisions/.test(title) || roll < 0.3) {
        const prefix = type === "api" ? "API" : type === "design" ? "DES" : "REQ";
        for (let k = 0; k < 4 + Math.floor(r() * 6); k++)
          parts.push(
            `- **${prefix}-${String(req++).padStart(3, "0")}** The ${pick(WORDS)} ${pick(KEYWORDS)} ${sentence(10).toLowerCase()}`,
          );
        parts.push("");
      } else if (roll < 0.5) {
        parts.push("| Field | Type | Notes |\n|---|---|---|");
        for (let k = 0; k < 3 + Math.floor(r() * 6); k++)
          parts.push(
            `| \`${pick(WORDS)}_${k}\` | ${pick(["string", "integer", "uuid", "boolean"])} | ${sentence(6)} |`,
          );
        parts.push("");
      } else if (roll < 0.65) {
        parts.push("```json\n{");
        for (let k = 0; k < 4 + Math.floor(r() * 8); k++)
          parts.push(`  "${pick(WORDS)}_${k}": "${pick(WORDS)}",`);
        parts.push('  "end": true\n}\n```\n');
      } else if (roll < 0.75) {
        parts.push(
          `### ${pick(WORDS)} ${pick(WORDS)}\n\n${sentence()} ${sentence()}\n\n1. ${sentence()}\n2. ${sentence()}\n   - ${sentence()}\n`,
        );
      } else parts.push(`${sentence()} ${sentence()} ${sentence()} ${sentence()}\n\n> ${sentence()}\n`);
      if (r() < 0.05) parts.push(`See [the notes](notes-${i}.md) and ![diagram](diagram.png).\n`);
      if (r() < 0.1) parts.push(`Assumption: ${sentence().toLowerCase()}\n`);
      const chunk = parts.join("\n");
      out.push(chunk);
      size += chunk.length + 1;
      if (size >= bytes) break;
    }
    round++;
  }
  return { type, text: `${out.join("\n")}\n` };
}

function time(label: string, cmd: string, args: string[], cwd: string): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`${label} failed (${r.status}): ${r.stderr.slice(0, 500)}`);
  return ms;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// 1. Corpus.
const corpus = mkdtempSync(join(tmpdir(), "spec-review-bench-"));
let total = 0;
for (let i = 0; i < DOCS; i++) {
  const { type, text } = makeDoc(i, KB * 1024, SHAPE === "kep");
  if (SHAPE === "kep") {
    const folder = join(
      corpus,
      `sig-${["node", "apps", "network", "storage"][i % 4]}`,
      `${1000 + i}-generated-${i}`,
    );
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "README.md"), text);
    const meta = `title: Generated enhancement ${i}\nkep-number: ${1000 + i}\nowning-sig: sig-node\nstatus: implementable\ncreation-date: 2025-01-01\n`;
    writeFileSync(join(folder, "kep.yaml"), meta);
    total += Buffer.byteLength(text) + meta.length;
    continue;
  }
  const folder = join(corpus, `bundle-${String(i).padStart(4, "0")}`);
  mkdirSync(folder);
  writeFileSync(join(folder, `${type}.md`), text);
  total += Buffer.byteLength(text);
}
process.stdout.write(
  `corpus (${SHAPE}): ${DOCS} docs, ${(total / 1024 / 1024).toFixed(1)} MB in ${corpus}\n`,
);

// From source by default, so the figures are those of the code in the tree; --built
// times dist/ (run `npm run build` first).
const built = join(root, "dist", "cli", "main.js");
const ours =
  values.built && existsSync(built)
    ? { cmd: process.execPath, args: [built, "lint", corpus], how: "node dist/cli/main.js" }
    : {
        cmd: join(root, "node_modules", ".bin", "tsx"),
        args: [join(root, "cli", "main.ts"), "lint", corpus],
        how: "tsx cli/main.ts",
      };
const mdl = { cmd: join(root, "node_modules", ".bin", "markdownlint-cli2"), args: ["**/*.md"] };

const oursMs = time("spec-review lint", ours.cmd, ours.args, root);
const mdlMs = time("markdownlint-cli2", mdl.cmd, mdl.args, corpus);
process.stdout.write(`spec-review lint (${ours.how}): ${(oursMs / 1000).toFixed(2)} s\n`);
process.stdout.write(`markdownlint-cli2 (default rules): ${(mdlMs / 1000).toFixed(2)} s\n`);
process.stdout.write(`ratio: ${(oursMs / mdlMs).toFixed(2)}x (aim <= 0.15x)\n`);

// 2. Re-lint of one 100 KB doc after a one-line change, in process.
const { profiles } = loadProfiles(fsProfileSource(join(root, "profiles")));
const big = makeDoc(424242, 100 * 1024).text;
const lines = big.split("\n");
const samples: number[] = [];
const RUNS = 300;
for (let n = 0; n < RUNS + 20; n++) {
  const edited = [...lines];
  const at = 20 + (n % (lines.length - 40));
  edited[at] = `${edited[at]} edit ${n}`;
  const text = edited.join("\n");
  const t0 = performance.now();
  lintBundle({ files: new Map([["prd.md", text]]), mainPath: "prd.md", profiles });
  const ms = performance.now() - t0;
  if (n >= 20) samples.push(ms);
}
samples.sort((a, b) => a - b);
process.stdout.write(
  `re-lint of a ${(Buffer.byteLength(big) / 1024).toFixed(0)} KB doc after a one-line change (${RUNS} runs): p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms (aim p50 < 20 ms)\n`,
);

if (!values.keep) rmSync(corpus, { recursive: true, force: true });
