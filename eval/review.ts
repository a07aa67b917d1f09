/**
 * eval:review — what the full review catches (docs/eval.md, "Review eval").
 *
 * Reviews every bundle of fixtures/eval through the service's own pipeline (the app and
 * worker of `spec-review serve`, in process on an embedded PGlite, through
 * `POST /docs/{docId}/runs`) and scores the findings against each bundle's expected.yaml:
 * recall per defect kind and overall, false MUST findings per clean doc, calls, tokens and
 * wall time. Writes eval-report.json and eval-report.md.
 *
 *   npm run eval:review                                    # the scripted test model
 *   npm run eval:review -- --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b
 *   npm run eval:review -- --base-url https://api.openai.com/v1 --model gpt-4.1-mini --api-key-env OPENAI_API_KEY
 *   options: --readers N  --only KIND  --parallel N  --out DIR  --corpus DIR  --timeout-min N
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { scriptedAnswer } from "../test/core/review/scripted-model.js";
import { startFakeOpenAI, type FakeHandler } from "../test/helpers/fake-openai.js";
import { openHarness, type RunResult } from "./harness.js";
import {
  DEFECT_KINDS,
  checkExpectation,
  scoreBundle,
  summarize,
  type BundleExpectation,
  type BundleScore,
  type DefectKind,
  type EvalSummary,
} from "./scoring.js";

const ROOT = resolve(import.meta.dirname, "..");

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    model: { type: "string" },
    "api-key-env": { type: "string" },
    readers: { type: "string" },
    only: { type: "string" },
    parallel: { type: "string", default: "4" },
    out: { type: "string", default: join(ROOT, "tmp", "eval") },
    corpus: { type: "string", default: join(ROOT, "fixtures", "eval") },
    "timeout-min": { type: "string", default: "30" },
  },
});

function usage(why: string): never {
  console.error(`eval:review: ${why}`);
  process.exit(2);
}

const only = values.only as DefectKind | undefined;
if (only !== undefined && !DEFECT_KINDS.includes(only))
  usage(`--only must be one of ${DEFECT_KINDS.join(", ")}`);
const readers = values.readers === undefined ? undefined : Number(values.readers);
if (readers !== undefined && !(Number.isInteger(readers) && readers >= 1 && readers <= 9))
  usage("--readers must be a whole number from 1 to 9");
const parallel = Number(values.parallel);
if (!(Number.isInteger(parallel) && parallel >= 1 && parallel <= 16)) usage("--parallel must be 1 to 16");
if ((values["base-url"] === undefined) !== (values.model === undefined))
  usage("--base-url and --model go together");
const keyEnv = values["api-key-env"];
if (keyEnv !== undefined && !process.env[keyEnv]) usage(`the environment variable ${keyEnv} is not set`);

/** The corpus: every folder with an expected.yaml, checked. */
function loadCorpus(dir: string): Map<string, BundleExpectation> {
  const out = new Map<string, BundleExpectation>();
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, "expected.yaml");
    if (!existsSync(file)) continue;
    out.set(name, checkExpectation(name, parseYaml(readFileSync(file, "utf8"))));
  }
  return out;
}

/** The scripted test model behind the fake OpenAI server (as the end-to-end tests use it). */
const answerFor: FakeHandler = (req) => {
  const rf = req.body.response_format?.json_schema;
  return { json: scriptedAnswer(rf?.name ?? "", req.prompt, rf?.schema) };
};

const corpus = loadCorpus(values.corpus);
const scripted = values["base-url"] === undefined;
const fake = scripted ? await startFakeOpenAI({ handler: answerFor }) : undefined;
const target = fake
  ? { baseUrl: fake.baseUrl, model: "scripted", secret: "none" }
  : { baseUrl: values["base-url"]!, model: values.model!, secret: keyEnv ? process.env[keyEnv]! : "none" };

const harness = await openHarness({
  corpus: values.corpus,
  profiles: join(ROOT, "profiles"),
  ...(readers !== undefined ? { readers } : {}),
  parallel,
});
const t0 = performance.now();
const results: RunResult[] = [];
const scores: BundleScore[] = [];
const skipped: string[] = [];
try {
  await harness.configure(target);
  const docs = await harness.docs();
  const known = new Set(harness.profileKeys());
  const chosen = [...corpus].filter(([name, exp]) => {
    if (!known.has(exp.profile) || !docs.has(name)) {
      skipped.push(
        `${name} (profile ${exp.profile} ${known.has(exp.profile) ? "has no doc" : "is not installed"})`,
      );
      return false;
    }
    return only === undefined || exp.clean || exp.defects.some((d) => d.kind === only);
  });
  console.log(
    `eval:review: ${chosen.length} bundles, model ${target.model}${scripted ? " (the scripted test model)" : ` at ${target.baseUrl}`}, ` +
      `readers ${readers ?? "per profile"}, parallel_calls ${parallel}`,
  );
  const timeoutMs = Number(values["timeout-min"]) * 60_000;
  await Promise.all(
    chosen.map(async ([name, exp]) => {
      const r = await harness.review(name, docs.get(name)!, timeoutMs);
      results.push(r);
      const expected = only ? { ...exp, defects: exp.defects.filter((d) => d.kind === only) } : exp;
      scores.push(scoreBundle(name, expected, r.findings));
      console.log(
        `  ${name.padEnd(32)} ${r.status.padEnd(6)} ${String(r.findings.filter((f) => f.stage !== "lint").length).padStart(3)} AI findings, ` +
          `${scores.at(-1)!.defects.filter((d) => d.caught).length}/${expected.defects.length} caught, ${r.calls} calls, ${(r.wall_ms / 1000).toFixed(1)} s` +
          (r.error ? `  ${r.error.slice(0, 120)}` : ""),
      );
    }),
  );
} finally {
  await harness.close();
  await fake?.close();
}
const wall = performance.now() - t0;
scores.sort((a, b) => a.bundle.localeCompare(b.bundle));
results.sort((a, b) => a.bundle.localeCompare(b.bundle));
const summary = summarize(scores, only);
const totals = {
  calls: results.reduce((n, r) => n + r.calls, 0),
  tokens_in: results.reduce((n, r) => n + r.tokens_in, 0),
  tokens_out: results.reduce((n, r) => n + r.tokens_out, 0),
  wall_s: Math.round(wall / 100) / 10,
  failed_runs: results.filter((r) => r.status !== "done").length,
};

function table(s: EvalSummary): string[] {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return [
    "| defect kind | planted | caught | recall |",
    "|---|---:|---:|---:|",
    ...Object.entries(s.by_kind).map(([k, v]) => `| ${k} | ${v.planted} | ${v.caught} | ${pct(v.recall)} |`),
    `| **overall** | ${s.overall.planted} | ${s.overall.caught} | ${pct(s.overall.recall)} |`,
  ];
}

const lines = [
  `# Review eval`,
  "",
  `Model: ${target.model}${scripted ? " (scripted test model)" : ` at ${target.baseUrl}`}; readers: ${readers ?? "per profile"}; ` +
    `bundles: ${summary.bundles} (${summary.clean_bundles} clean)${only ? `; only ${only}` : ""}.`,
  "",
  ...table(summary),
  "",
  `- False MUST findings per clean doc: ${summary.false_must_per_clean_doc}`,
  `- Findings that caught no planted defect, per doc: ${summary.unmatched_per_doc}`,
  `- Calls: ${totals.calls}; tokens in ${totals.tokens_in}, out ${totals.tokens_out}; wall time ${totals.wall_s} s; failed runs ${totals.failed_runs}`,
  ...(skipped.length ? ["", `Skipped: ${skipped.join(", ")}`] : []),
  "",
  "## Missed defects",
  "",
  ...scores.flatMap((s) =>
    s.defects
      .filter((d) => !d.caught)
      .map(
        (d) =>
          `- ${s.bundle}: ${d.defect.kind} in ${d.defect.path.join(" > ")}${d.defect.quote ? ` ("${d.defect.quote}")` : ""}`,
      ),
  ),
];
console.log("\n" + lines.slice(2, 4 + table(summary).length + 5).join("\n"));
mkdirSync(values.out, { recursive: true });
writeFileSync(
  join(values.out, "eval-report.json"),
  JSON.stringify(
    {
      model: target.model,
      base_url: scripted ? "scripted" : target.baseUrl,
      readers: readers ?? "profile",
      only: only ?? null,
      summary,
      totals,
      skipped,
      bundles: scores.map((s) => {
        const r = results.find((x) => x.bundle === s.bundle)!;
        return {
          bundle: s.bundle,
          clean: s.clean,
          status: r.status,
          ...(r.error ? { error: r.error } : {}),
          calls: r.calls,
          tokens_in: r.tokens_in,
          tokens_out: r.tokens_out,
          wall_ms: r.wall_ms,
          answers_by_stage: r.answers_by_stage,
          must: s.must,
          defects: s.defects,
          unmatched: s.unmatched,
        };
      }),
    },
    null,
    2,
  ) + "\n",
);
writeFileSync(join(values.out, "eval-report.md"), lines.join("\n") + "\n");
console.log(`\nwrote ${join(values.out, "eval-report.json")} and eval-report.md`);
if (totals.failed_runs > 0) process.exitCode = 1;
