/**
 * One model step: cache lookup by sha256(stage, model, prompt), at most `parallel` calls
 * at once (`p-limit`), the budget asked before each call and told after it, retries with
 * backoff for errors a retry can help (`p-retry`; a 429's Retry-After is respected, and a
 * call waiting to retry holds no slot), and the answer validated against its zod schema.
 * An answer that fails it is repaired where the fix has one clear meaning (the step's
 * salvager, core/review/repair.ts); otherwise it is asked again once with the problems;
 * on that second try its invalid items are dropped, and an answer still unusable fails the
 * step with `model_output_invalid` (the pipeline then loses only that step's item).
 * Per stage, the runner counts calls and repaired, retried, dropped and lost answers.
 */
import JSON5 from "json5";
import pLimit, { type LimitFunction } from "p-limit";
import pRetry, { AbortError } from "p-retry";
import type { z } from "zod";
import { ModelCallError, type ModelClient } from "./model.js";
import type { Salvager } from "./repair.js";
import { jsonSchemaOf } from "./schemas.js";

export interface CachedStep {
  stage: string;
  model: string;
  /** The raw answer text that validated. */
  text: string;
  tokensIn: number;
  tokensOut: number;
}

/** What a model's past answers of one stage looked like (for estimates). */
export interface StageHistory {
  /** Answers seen. */
  answers: number;
  /** Mean prompt size: what an unknown prompt of this stage (a question not asked yet) likely costs. */
  meanTokensIn: number;
  meanTokensOut: number;
  /** Mean items per answer, for answers that list items (questions, claims, findings). */
  meanItems?: number;
}

/** Where answers are kept between runs (server: the step_cache table). */
export interface StepCache {
  get(key: string): Promise<CachedStep | undefined>;
  put(key: string, step: CachedStep): Promise<void>;
  /** The model's recent answers by stage; estimates use them instead of fixed sizes. */
  history?(model: string): Promise<Record<string, StageHistory>>;
}

/** Summarize cached answers by stage (the `history` of a StepCache). */
export function historyOf(steps: Iterable<Pick<CachedStep, "stage" | "text" | "tokensIn" | "tokensOut">>) {
  const acc = new Map<string, { n: number; in: number; out: number; listed: number; items: number }>();
  for (const s of steps) {
    const a = acc.get(s.stage) ?? { n: 0, in: 0, out: 0, listed: 0, items: 0 };
    a.n++;
    a.in += s.tokensIn;
    a.out += s.tokensOut;
    try {
      const v = parseJsonAnswer(s.text) as Record<string, unknown>;
      const list = Object.values(v).find((x) => Array.isArray(x)) as unknown[] | undefined;
      if (list && Object.keys(v).length === 1) {
        a.listed++;
        a.items += list.length;
      }
    } catch {
      // not JSON: counts for size only
    }
    acc.set(s.stage, a);
  }
  const out: Record<string, StageHistory> = {};
  for (const [stage, a] of acc)
    out[stage] = {
      answers: a.n,
      meanTokensIn: a.in / a.n,
      meanTokensOut: a.out / a.n,
      ...(a.listed > 0 ? { meanItems: a.items / a.listed } : {}),
    };
  return out;
}

/** The monthly token budget as a run sees it. */
export interface BudgetGate {
  /** Tokens left; undefined when there is no limit. */
  remaining(): Promise<number | undefined>;
  record(tokensIn: number, tokensOut: number): Promise<void>;
}

export interface RetryPolicy {
  /** Retries after the first try, for timeouts, 429s, 5xx and a CLI's non-zero exit. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A longer Retry-After than this fails the step rather than wait. */
  maxRetryAfterMs: number;
  /** One call's time limit. */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 180_000,
};

export type ReviewErrorCode = "budget_exceeded" | "model_output_invalid" | "model_call_failed" | "cancelled";

/** Why a review stopped. `message` is what `run_error` says. */
export class ReviewError extends Error {
  constructor(
    readonly code: ReviewErrorCode,
    message: string,
    readonly stage?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ReviewError";
  }
}

export interface RoleRef {
  client: ModelClient;
  model: string;
}

export interface StepRequest<S extends z.ZodType> {
  stage: string;
  role: RoleRef;
  system: string;
  prompt: string;
  schemaName: string;
  schema: S;
  /** Expected answer size, for the budget check before the call. */
  expectedTokensOut?: number;
  /** Repairs an answer that fails the schema (core/review/repair.ts); without it, no repair. */
  salvage?: Salvager<unknown>;
}

export interface StepResult<T> {
  value: T;
  cached: boolean;
  tokensIn: number;
  tokensOut: number;
  /** Repairs made to the answer (none for a cached one). */
  repairs: string[];
  /** Items left out of the answer. */
  dropped: number;
}

export interface Usage {
  /** Steps asked (each one answer), cached or not. */
  steps: number;
  /** Steps the cache answered. */
  cached: number;
  /** Model requests made, retries and re-asks included. */
  requests: number;
  tokensIn: number;
  tokensOut: number;
}

export interface StepRunnerOptions {
  parallel: number;
  cache?: StepCache;
  budget?: BudgetGate;
  retry?: Partial<RetryPolicy>;
  /** Wait (backoff); resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Told after every step. */
  onStep?: (info: { stage: string; cached: boolean; tokensIn: number; tokensOut: number }) => void;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The cache key of a step: the same stage, model and prompt give the same key. */
export function stepKey(stage: string, model: string, system: string, prompt: string, schemaName: string) {
  return sha256Hex(JSON.stringify([stage, model, schemaName, system, prompt]));
}

/**
 * Parse a model's text as JSON. Tolerated, since each has one clear meaning: a reasoning
 * block before the answer (`<think>…</think>`, as reasoning models served by llama.cpp or
 * Ollama write it), a code fence around the answer or inside prose, prose around one
 * object (braces in the prose included), and JSON5's leniencies (trailing commas, single
 * quotes, comments, unquoted keys) in an answer not asked with a schema the server enforces.
 */
export function parseJsonAnswer(text: string): unknown {
  const t = text.replace(/^\s*<(think|thinking|reasoning)>[\s\S]*?<\/\1>/i, "").trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(t);
  const body = fenced ? fenced[1]! : t;
  try {
    return JSON.parse(body);
  } catch (err) {
    const candidates = [...jsonCandidates(body)];
    const found = firstParsed(JSON.parse, candidates) ?? firstParsed(JSON5.parse, [body, ...candidates]);
    if (found) return found.value;
    throw err; // the first error says more than a candidate's
  }
}

function firstParsed(parse: (text: string) => unknown, texts: string[]): { value: unknown } | undefined {
  for (const text of texts) {
    try {
      return { value: parse(text) };
    } catch {
      /* the next one */
    }
  }
  return undefined;
}

/** At most this many objects are tried in an answer that is not JSON as a whole. */
const MAX_CANDIDATES = 8;

/** Where an answer wrapped in prose may be: fenced blocks, then balanced `{…}` spans, then first `{` to last `}`. */
function* jsonCandidates(text: string): Generator<string> {
  for (const m of text.matchAll(/```(?:json)?[ \t]*\r?\n([\s\S]*?)```/g)) yield m[1]!;
  let from = 0;
  for (let n = 0; n < MAX_CANDIDATES; n++) {
    const start = text.indexOf("{", from);
    if (start < 0) break;
    const end = balancedEnd(text, start);
    if (end >= 0) yield text.slice(start, end + 1);
    from = start + 1;
  }
  const s = text.indexOf("{");
  const e = text.lastIndexOf("}");
  if (s >= 0 && e > s) yield text.slice(s, e + 1);
}

/** The index of the `}` closing the `{` at `start` (strings and escapes respected), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Validate an answer text; the error says what is wrong, briefly. */
export function validateAnswer<S extends z.ZodType>(
  schema: S,
  text: string,
): { ok: true; value: z.output<S> } | { ok: false; error: string } {
  let data: unknown;
  try {
    data = parseJsonAnswer(text);
  } catch (err) {
    const excerpt = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return { ok: false, error: `not JSON (${(err as Error).message}); it began: ${JSON.stringify(excerpt)}` };
  }
  const r = schema.safeParse(data);
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ");
  return { ok: false, error: `does not match the schema: ${issues}` };
}

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** What happened to the answers of one stage (the run report's `answers_by_stage`). */
export interface StageAnswers {
  /** Model requests made (retries after errors and re-asks included; cached steps not). */
  calls: number;
  /** Answers taken after at least one repair with one clear meaning. */
  repaired: number;
  /** Answers asked again once because they were invalid. */
  retried: number;
  /** Items left out: beyond a schema limit, or still invalid after the re-ask. */
  dropped: number;
  /** Steps whose answer was unusable twice (the item it was for is lost). */
  lost: number;
}

export const emptyStageAnswers = (): StageAnswers => ({
  calls: 0,
  repaired: 0,
  retried: 0,
  dropped: 0,
  lost: 0,
});

/** A model error to retry, with how long to wait first. */
class RetryableCall extends Error {
  constructor(
    readonly waitMs: number,
    readonly error: ModelCallError,
  ) {
    super(error.message);
  }
}

export class StepRunner {
  readonly usage: Usage = { steps: 0, cached: 0, requests: 0, tokensIn: 0, tokensOut: 0 };
  /** Per stage: calls, repaired, retried, dropped and lost answers. */
  readonly answers = new Map<string, StageAnswers>();
  /** Every repair made, by stage (the first few of each are kept). */
  readonly repairs = new Map<string, string[]>();
  private readonly slots: LimitFunction;
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;

  constructor(private readonly opts: StepRunnerOptions) {
    this.slots = pLimit(Math.max(1, Math.floor(opts.parallel)));
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.sleep = opts.sleep ?? defaultSleep;
    this.signal = opts.signal
      ? AbortSignal.any([opts.signal, this.controller.signal])
      : this.controller.signal;
  }

  /** Stop every step not finished (after a step failed). */
  abort(): void {
    this.controller.abort();
  }

  stageAnswers(stage: string): StageAnswers {
    let a = this.answers.get(stage);
    if (!a) this.answers.set(stage, (a = emptyStageAnswers()));
    return a;
  }

  private noteRepairs(stage: string, repairs: string[]): void {
    const list = this.repairs.get(stage) ?? [];
    for (const r of repairs) if (list.length < 20) list.push(r);
    this.repairs.set(stage, list);
  }

  private checkAborted(stage: string): void {
    if (this.signal.aborted) throw new ReviewError("cancelled", "the run was stopped", stage);
  }

  async run<S extends z.ZodType>(req: StepRequest<S>): Promise<StepResult<z.output<S>>> {
    this.checkAborted(req.stage);
    const key = await stepKey(req.stage, req.role.model, req.system, req.prompt, req.schemaName);
    const hit = await this.opts.cache?.get(key);
    if (hit) {
      const v = validateAnswer(req.schema, hit.text);
      if (v.ok) {
        this.usage.steps++;
        this.usage.cached++;
        this.opts.onStep?.({ stage: req.stage, cached: true, tokensIn: 0, tokensOut: 0 });
        return { value: v.value, cached: true, tokensIn: 0, tokensOut: 0, repairs: [], dropped: 0 };
      }
    }
    const jsonSchema = jsonSchemaOf(req.schema);
    const stats = this.stageAnswers(req.stage);
    let prompt = req.prompt;
    let tokensIn = 0;
    let tokensOut = 0;
    for (let attempt = 0; ; attempt++) {
      const answer = await this.call(req, prompt, jsonSchema);
      tokensIn += answer.tokensIn;
      tokensOut += answer.tokensOut;
      const got = this.judge(req, answer.text, attempt >= 1);
      if (got.ok) {
        const value = got.value as z.output<S>;
        await this.opts.cache?.put(key, {
          stage: req.stage,
          model: req.role.model,
          text: got.repairs.length > 0 || got.dropped > 0 ? JSON.stringify(value) : answer.text,
          tokensIn: answer.tokensIn,
          tokensOut: answer.tokensOut,
        });
        if (got.repairs.length > 0) {
          stats.repaired++;
          this.noteRepairs(req.stage, got.repairs);
        }
        stats.dropped += got.dropped;
        this.usage.steps++;
        this.opts.onStep?.({ stage: req.stage, cached: false, tokensIn, tokensOut });
        return { value, cached: false, tokensIn, tokensOut, repairs: got.repairs, dropped: got.dropped };
      }
      if (attempt >= 1) {
        stats.lost++;
        throw new ReviewError(
          "model_output_invalid",
          `${req.stage}: the model's answer is not valid twice in a row; last answer ${got.error}`,
          req.stage,
        );
      }
      stats.retried++;
      prompt =
        `${req.prompt}\n\n---\nYour previous answer was not valid: ${got.error}\n` +
        (answer.truncated
          ? "It was cut off at your output limit: answer with fewer items and shorter text.\n"
          : "") +
        `Answer again with only a JSON object that matches the schema ${req.schemaName}.`;
    }
  }

  /**
   * Whether an answer text is usable: valid as is, or after repairs with one clear meaning;
   * on the last try, also with its invalid items left out.
   */
  private judge(
    req: StepRequest<z.ZodType>,
    text: string,
    last: boolean,
  ): { ok: true; value: unknown; repairs: string[]; dropped: number } | { ok: false; error: string } {
    const v = validateAnswer(req.schema, text);
    if (v.ok) return { ok: true, value: v.value, repairs: [], dropped: 0 };
    if (!req.salvage || v.error.startsWith("not JSON")) return v;
    const s = req.salvage(parseJsonAnswer(text));
    if (s.value === undefined || (s.problems.length > 0 && !last))
      return { ok: false, error: `does not match the schema: ${s.problems.slice(0, 5).join("; ")}` };
    const checked = req.schema.safeParse(s.value);
    if (!checked.success) return v;
    return { ok: true, value: checked.data, repairs: s.repairs, dropped: s.dropped + s.invalid };
  }

  /** One model call, holding a slot, with retries for errors a retry can help. */
  private async call(req: StepRequest<z.ZodType>, prompt: string, schema: Record<string, unknown>) {
    return pRetry(
      async (attempt) => {
        this.checkAborted(req.stage);
        return this.slots(() => this.callOnce(req, prompt, schema, attempt - 1));
      },
      {
        retries: this.retry.retries,
        minTimeout: 0,
        maxTimeout: 0,
        randomize: false,
        // A call waiting to retry holds no slot: the wait is outside `slots`.
        onFailedAttempt: async ({ error }) => {
          if (error instanceof RetryableCall) await this.sleep(error.waitMs, this.signal);
        },
        shouldRetry: ({ error }) => error instanceof RetryableCall,
      },
    ).catch((err: unknown) => {
      if (err instanceof RetryableCall) throw this.failed(req, err.error, this.retry.retries);
      throw err;
    });
  }

  private failed(req: StepRequest<z.ZodType>, e: ModelCallError, retries: number): ReviewError {
    return new ReviewError(
      "model_call_failed",
      `${req.stage}: the model call failed (${e.kind}${retries > 0 ? `, after ${retries} retries` : ""}): ${e.message}`,
      req.stage,
      { cause: e },
    );
  }

  private async callOnce(
    req: StepRequest<z.ZodType>,
    prompt: string,
    schema: Record<string, unknown>,
    retry: number,
  ) {
    this.checkAborted(req.stage);
    await this.checkBudget(req, prompt);
    const timeout = AbortSignal.timeout(this.retry.timeoutMs);
    const signal = AbortSignal.any([this.signal, timeout]);
    this.usage.requests++;
    this.stageAnswers(req.stage).calls++;
    try {
      const answer = await req.role.client.call({
        stage: req.stage,
        model: req.role.model,
        system: req.system,
        prompt,
        schemaName: req.schemaName,
        schema,
        signal,
      });
      this.usage.tokensIn += answer.tokensIn;
      this.usage.tokensOut += answer.tokensOut;
      await this.opts.budget?.record(answer.tokensIn, answer.tokensOut);
      return answer;
    } catch (err) {
      if (this.signal.aborted)
        throw new AbortError(new ReviewError("cancelled", "the run was stopped", req.stage));
      const e =
        err instanceof ModelCallError
          ? err
          : timeout.aborted
            ? new ModelCallError(`no answer within ${this.retry.timeoutMs} ms`, "timeout", undefined, {
                cause: err,
              })
            : undefined;
      if (!e)
        throw new AbortError(
          new ReviewError(
            "model_call_failed",
            `${req.stage}: the model call failed: ${err instanceof Error ? err.message : String(err)}`,
            req.stage,
            { cause: err },
          ),
        );
      const tooLong = e.retryAfterMs !== undefined && e.retryAfterMs > this.retry.maxRetryAfterMs;
      if (!e.retryable || retry >= this.retry.retries || tooLong)
        throw new AbortError(this.failed(req, e, retry));
      throw new RetryableCall(
        e.retryAfterMs ?? Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * Math.pow(2, retry)),
        e,
      );
    }
  }

  private async checkBudget(req: StepRequest<z.ZodType>, prompt: string): Promise<void> {
    if (!this.opts.budget) return;
    const left = await this.opts.budget.remaining();
    if (left === undefined) return;
    const need = estimateTokens(req.system + prompt) + (req.expectedTokensOut ?? 300);
    if (need > left)
      throw new AbortError(
        new ReviewError(
          "budget_exceeded",
          `${req.stage}: the monthly token budget would be passed (this call needs about ${need} tokens, ${Math.max(0, left)} are left)`,
          req.stage,
        ),
      );
  }
}
