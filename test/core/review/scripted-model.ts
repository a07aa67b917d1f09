/**
 * A model that answers every review stage from the text of the prompt, by fixed rules, so
 * tests (in process, through the fake OpenAI server, through an agent CLI) and the
 * benchmark can run the whole pipeline and know what to expect:
 *
 * - questions: every sentence of the section that opens with a trace ID (`REQ-001 …`)
 *   raises "What exactly does REQ-001 require?" at MUST (SHOULD when the sentence has
 *   "should"), quoting the sentence;
 * - readers: the answer is the sentence of the context that opens with the question's
 *   ID, quoted. "TBD" in it: NOT SPECIFIED. "(ambiguous)": each reader answers
 *   differently. "(misquote)": the quote is not in the text. No such sentence: NOT SPECIFIED;
 * - judge: readers with the same answer text form a group;
 * - claims: a sentence opening "Fact:" is supported (quoting itself), "Contradiction:"
 *   is contradicted (quoting itself), "Rumor:" is "supported" by a quote that is nowhere;
 * - findings: "TODO" gives a SHOULD quoting the sentence; "FIXME" a MUST whose quote is
 *   not in the text (so it is anchored to the section heading);
 * - fix: replaces the first "TODO" by "DONE"; diff summary: counts the changed sections;
 * - external link: a target whose text has "Conflict:" is conflicting, "Drift:" drifted,
 *   anything else aligned; the explanation quotes the target's first line.
 */
import { ModelCallError, type ModelCall, type ModelClient } from "../../../core/review/model.js";

export interface Block {
  label: string;
  text: string;
}

/** The `=== label ===` blocks of a prompt. */
export function blocksOf(prompt: string): Block[] {
  const out: Block[] = [];
  const re = /^=== (.+) ===\n([\s\S]*?)(?=\n\n=== |\n<\/spec_text_\d+>|$(?![\s\S]))/gm;
  for (const m of prompt.matchAll(re)) out.push({ label: m[1]!, text: m[2]!.trim() });
  return out;
}

function sentences(text: string): string[] {
  return text
    .split(/\n+/)
    .map((l) => l.replace(/^\s*(?:[-*]|\d+\.)\s+/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** The first enum value under a `category` property of a JSON Schema. */
export function firstCategory(schema: unknown): string {
  let found: string | undefined;
  const walk = (v: unknown) => {
    if (found || !v || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    const props = o["properties"] as Record<string, { enum?: unknown[] }> | undefined;
    const e = props?.["category"]?.enum;
    if (Array.isArray(e) && typeof e[0] === "string") {
      found = e[0];
      return;
    }
    for (const x of Object.values(o)) walk(x);
  };
  walk(schema);
  return found ?? "clarity";
}

const ID = /^([A-Z][A-Z0-9]*-\d+)\b/;

export function scriptedAnswer(schemaName: string, prompt: string, schema: unknown): unknown {
  const blocks = blocksOf(prompt);
  const category = firstCategory(schema);
  switch (schemaName) {
    case "build_questions": {
      const section = blocks[0]?.text ?? "";
      return {
        questions: sentences(section)
          .filter((s) => ID.test(s))
          .map((s) => {
            const id = ID.exec(s)![1]!;
            return {
              text: `What exactly does ${id} require?`,
              level: /\bshould\b/i.test(s) ? "SHOULD" : "MUST",
              category,
              quote: s,
              trace_ids: [id],
            };
          }),
      };
    }
    case "reader_answer": {
      const reader = Number(/You are reader (\d+) of/.exec(prompt)?.[1] ?? 1);
      const id = /Question: What exactly does (\S+) require\?/.exec(prompt)?.[1];
      const line = id
        ? blocks.flatMap((b) => sentences(b.text)).find((s) => s.startsWith(id + " ") || s === id)
        : undefined;
      if (!line || /\bTBD\b/.test(line)) return { not_specified: true, answer: "NOT SPECIFIED", quotes: [] };
      if (line.includes("(misquote)"))
        return { not_specified: false, answer: line, quotes: [`${line} and some words that are not there`] };
      const answer = line.includes("(ambiguous)") ? `reading ${reader}: ${line}` : line;
      return { not_specified: false, answer, quotes: [line] };
    }
    case "judge_groups": {
      const answers = [...prompt.matchAll(/^Reader (\d+): (.*)$/gm)].map((m) => ({
        reader: Number(m[1]),
        answer: m[2]!,
      }));
      const groups = new Map<string, number[]>();
      for (const a of answers) groups.set(a.answer, [...(groups.get(a.answer) ?? []), a.reader]);
      const list = [...groups.values()];
      return {
        groups: list,
        result: list.length === 1 ? "agree" : "diverge",
        agreed_answer: list.length === 1 ? answers[0]!.answer : "",
        explanation: list.length === 1 ? "same meaning" : "the readers read it differently",
      };
    }
    case "claims": {
      const section = blocks[0]?.text ?? "";
      const claims = sentences(section).flatMap((s) => {
        if (s.startsWith("Fact:"))
          return [{ text: s, quote: s, label: "supported", sources: [s], category, explanation: "stated" }];
        if (s.startsWith("Contradiction:"))
          return [
            { text: s, quote: s, label: "contradicted", sources: [s], category, explanation: "conflict" },
          ];
        if (s.startsWith("Rumor:"))
          return [
            {
              text: s,
              quote: s,
              label: "supported",
              sources: ["a sentence that no file of the bundle holds"],
              category,
              explanation: "heard",
            },
          ];
        return [];
      });
      return { claims };
    }
    case "findings": {
      const section = blocks[0]?.text ?? "";
      const findings = sentences(section).flatMap((s) => {
        const out = [];
        if (s.includes("TODO"))
          out.push({ level: "SHOULD", category, message: "Finish this: it says TODO.", quote: s });
        if (s.includes("FIXME"))
          out.push({
            level: "MUST",
            category,
            message: "Something here is broken.",
            quote: "text that is not in the doc",
          });
        return out;
      });
      return { findings };
    }
    case "finding_fix": {
      const section =
        /The section of [^\n]*:\n<spec_text_\d+[^>]*>\n([\s\S]*?)\n<\/spec_text_\d+>\n\nGive the exact text/.exec(
          prompt,
        )?.[1] ?? "";
      const line = section.split("\n").find((l) => l.includes("TODO")) ?? section.split("\n")[0] ?? "";
      return { find: line, replace: line.replace("TODO", "DONE"), explanation: "Finished the TODO." };
    }
    case "external_link": {
      const target = /<(spec_text_\d+) part="target">\n([\s\S]*?)\n<\/\1>/.exec(prompt)?.[2] ?? "";
      const first = target.split("\n").find((l) => l.trim() !== "") ?? "";
      const state = target.includes("Conflict:")
        ? "conflicting"
        : target.includes("Drift:")
          ? "drifted"
          : "aligned";
      return { state, explanation: `The target says: ${first.trim().slice(0, 120)}` };
    }
    case "diff_summary": {
      const n = (prompt.match(/^=== /gm) ?? []).length;
      return { summary: `- ${n} section${n === 1 ? "" : "s"} changed` };
    }
    default:
      return {};
  }
}

export interface ScriptedClientOptions {
  latencyMs?: number;
  /** Called before answering; throw to simulate failures, return text to answer it instead. */
  intercept?: (call: ModelCall, n: number) => string | undefined;
}

/** An in-process ModelClient over `scriptedAnswer`. */
export function scriptedClient(opts: ScriptedClientOptions = {}): ModelClient & {
  calls: ModelCall[];
  inFlight: number;
  maxInFlight: number;
} {
  const client = {
    calls: [] as ModelCall[],
    inFlight: 0,
    maxInFlight: 0,
    async call(call: ModelCall) {
      const n = client.calls.push(call);
      client.inFlight++;
      client.maxInFlight = Math.max(client.maxInFlight, client.inFlight);
      try {
        if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
        if (call.signal?.aborted) throw new ModelCallError("aborted", "timeout");
        const text =
          opts.intercept?.(call, n) ??
          JSON.stringify(scriptedAnswer(call.schemaName, call.prompt, call.schema));
        return {
          text,
          tokensIn: Math.ceil((call.system + call.prompt).length / 4),
          tokensOut: Math.ceil(text.length / 4),
          estimated: false,
        };
      } finally {
        client.inFlight--;
      }
    },
  };
  return client;
}
