/**
 * bench:review — the full review's scheduling and its step cache.
 *
 * A bundle of 10 sections with 4 requirements each (40 build questions), 3 readers, a
 * fake model that answers after 200 ms, parallel_calls 4. The wall time of the AI stages
 * is compared with the ideal: calls x latency / parallel_calls (within 15%). Then one
 * section is edited and the bundle reviewed again with the same step cache: the share
 * of steps the cache answered is printed (aim: at least 80%). Before each review, the
 * estimate (the code of GET /docs/{docId}/runs/estimate, on the same step cache) is printed
 * beside the tokens and calls the review then really used, with their ratio (aim: within 25%).
 *
 *   npm run bench:review [-- --latency 200 --parallel 4]
 */
import { parseArgs } from "node:util";
import {
  estimateReview,
  historyOf,
  runReview,
  type CachedStep,
  type ReviewInput,
  type StepCache,
} from "../core/review/index.js";
import { scriptedClient } from "../test/core/review/scripted-model.js";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "200" },
    parallel: { type: "string", default: "4" },
    sections: { type: "string", default: "10" },
  },
});
const LATENCY = Number(values.latency);
const PARALLEL = Number(values.parallel);
const SECTIONS = Number(values.sections);
const READERS = 3;

function bundleText(edit = false): string {
  const parts = [
    "---",
    "type: prd",
    "size: standard",
    "---",
    "",
    "# Ledger",
    "",
    "Fact: The ledger keeps every posting.",
    "",
  ];
  for (let s = 0; s < SECTIONS; s++) {
    parts.push(`## Area ${s + 1}`, "");
    for (let r = 0; r < 4; r++) {
      const n = String(s * 4 + r + 1).padStart(3, "0");
      const limit = edit && s === 4 && r === 0 ? 25 : 10 * (r + 1);
      parts.push(`- REQ-${n} Area ${s + 1} accepts at most ${limit} items per request, rule ${r + 1}.`);
    }
    parts.push("");
  }
  return parts.join("\n");
}

/** Another bundle, written differently (fewer, longer sections), for a model that has answered before. */
function otherBundleText(): string {
  const parts = [
    "---",
    "type: prd",
    "---",
    "",
    "# Notifications",
    "",
    "Notifications tell users what changed.",
    "",
  ];
  const channels = ["Email", "Push", "SMS", "Webhooks", "In-app inbox", "Digest"];
  channels.forEach((channel, s) => {
    parts.push(`## ${channel} delivery`, "", `${channel} messages go out through the delivery queue.`, "");
    for (let r = 0; r < 3; r++) {
      const n = String(s * 3 + r + 1).padStart(3, "0");
      parts.push(
        `- NOTE-${n} ${channel} retries a failed send at most ${r + 2} times, waiting ${(r + 1) * 30} seconds ` +
          `between tries, and records each attempt with its provider response code.`,
      );
    }
    parts.push("");
  });
  return parts.join("\n");
}

function memoryCache(): StepCache {
  const map = new Map<string, CachedStep>();
  return {
    history: (model) => Promise.resolve(historyOf([...map.values()].filter((s) => s.model === model))),
    get: (k) => Promise.resolve(map.get(k)),
    put: (k, v) => {
      map.set(k, v);
      return Promise.resolve();
    },
  };
}

const PROFILE = {
  key: "prd",
  title: "Product requirements",
  radar: ["completeness", "clarity"],
  readers: READERS,
  build_questions: [],
  guidance: "",
};

type Role = "reviewer" | "reader" | "judge";
const ROLE_OF_SCHEMA: Record<string, Role> = { reader_answer: "reader", judge_groups: "judge" };

async function review(text: string, cache: StepCache) {
  const scripted = scriptedClient({ latencyMs: LATENCY });
  // What each role's calls really used, to set beside the estimate's split by role.
  const byRole: Record<Role, { tokensIn: number; tokensOut: number; calls: number }> = {
    reviewer: { tokensIn: 0, tokensOut: 0, calls: 0 },
    reader: { tokensIn: 0, tokensOut: 0, calls: 0 },
    judge: { tokensIn: 0, tokensOut: 0, calls: 0 },
  };
  const client = {
    ...scripted,
    call: async (call: Parameters<typeof scripted.call>[0]) => {
      const answer = await scripted.call(call);
      const r = byRole[ROLE_OF_SCHEMA[call.schemaName] ?? "reviewer"];
      r.calls++;
      r.tokensIn += answer.tokensIn;
      r.tokensOut += answer.tokensOut;
      return answer;
    },
  };
  const role = { client, model: "bench-model" };
  const bundle = { files: [{ path: "ledger.md", text }], mainPath: "ledger.md", linked: [] };
  const estimate = await estimateReview({
    bundle,
    profile: PROFILE,
    models: { reviewer: "bench-model", reader: "bench-model", judge: "bench-model" },
    cache,
  });
  const input: ReviewInput = {
    bundle,
    profile: PROFILE,
    roles: { reviewer: role, reader: role, judge: role },
    parallel: PARALLEL,
    cache,
    now: () => performance.now(),
  };
  const t0 = performance.now();
  const out = await runReview(input);
  const wall = performance.now() - t0;
  if (out.status !== "done") throw new Error(`review failed: ${out.error?.message}`);
  return { out, wall, calls: scripted.calls.length, maxInFlight: scripted.maxInFlight, estimate, byRole };
}

function printEstimate(label: string, r: Awaited<ReturnType<typeof review>>) {
  const e = r.estimate;
  const used = r.out.usage;
  const rows: Array<[string, number, number]> = [
    ["calls", e.calls, r.calls],
    ["tokens in", e.tokens_in, used.tokensIn],
    ["tokens out", e.tokens_out, used.tokensOut],
    ["tokens", e.tokens_in + e.tokens_out, used.tokensIn + used.tokensOut],
  ];
  console.log(`${label}: estimate (GET /docs/{docId}/runs/estimate) against what the run used`);
  for (const [name, est, real] of rows) {
    const ratio = real === 0 ? (est === 0 ? 1 : Infinity) : est / real;
    console.log(
      `  ${name.padEnd(10)} estimate ${String(est).padStart(7)}  used ${String(real).padStart(7)}  ratio ${ratio.toFixed(2)}` +
        (name === "tokens" ? (Math.abs(ratio - 1) <= 0.25 ? " (within 25%)" : " (NOT within 25%)") : ""),
    );
  }
  for (const role of ["reviewer", "reader", "judge"] as const) {
    const est = e.byRole[role];
    const used = r.byRole[role];
    console.log(
      `    ${role.padEnd(8)} calls ${est.calls}/${used.calls}  in ${est.tokensIn}/${used.tokensIn}  out ${est.tokensOut}/${used.tokensOut} (estimate/used)`,
    );
  }
}

const cache = memoryCache();
const first = await review(bundleText(), cache);
const ideal = (first.calls * LATENCY) / PARALLEL;
const over = first.wall / ideal - 1;
console.log(
  `bundle: ${SECTIONS} sections, ${first.out.questions.length} build questions, ${READERS} readers`,
);
console.log(
  `model: ${LATENCY} ms per call, parallel_calls ${PARALLEL} (most in flight: ${first.maxInFlight})`,
);
console.log(
  `first review: ${first.calls} calls in ${(first.wall / 1000).toFixed(2)} s; ideal ${(ideal / 1000).toFixed(2)} s ` +
    `(calls x latency / parallel); ${over >= 0 ? "+" : ""}${(over * 100).toFixed(1)}% ${Math.abs(over) <= 0.15 ? "(within 15%)" : "(NOT within 15%)"}`,
);
for (const s of first.out.stages)
  console.log(
    `  ${s.name.padEnd(10)} ${String(s.steps).padStart(4)} steps, from ${(s.started_ms / 1000).toFixed(2)} s for ${(s.duration_ms / 1000).toFixed(2)} s`,
  );

printEstimate("first review (the model has answered nothing yet: sizes from the schemas and the doc)", first);

const second = await review(bundleText(true), cache);
const share = second.out.usage.cached / second.out.usage.steps;
console.log(
  `after editing one section: ${second.out.usage.steps} steps, ${second.out.usage.cached} from the cache, ${second.calls} model calls ` +
    `in ${(second.wall / 1000).toFixed(2)} s; cache share ${(share * 100).toFixed(1)}% ${share >= 0.8 ? "(aim >= 80%: met)" : "(aim >= 80%: NOT met)"}`,
);
printEstimate("after the edit", second);

// The estimate before a model's first answer rests on the doc's statements and the
// answers' schemas (docs/review.md); once the model has answered, on its own history. A new bundle:
const other = await review(otherBundleText(), cache);
printEstimate("another bundle, same model", other);
if (Math.abs(over) > 0.15 || share < 0.8) process.exitCode = 1;
