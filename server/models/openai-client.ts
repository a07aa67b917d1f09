/**
 * A ModelClient over an OpenAI-compatible chat completions API (the `openai` SDK):
 * structured output through `response_format: json_schema`, token use from the answer,
 * SDK retries off (the pipeline retries), and every failure mapped to a ModelCallError kind.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import {
  ModelCallError,
  type ModelAnswer,
  type ModelCall,
  type ModelClient,
} from "../../core/review/model.js";

export interface OpenAIClientOptions {
  baseUrl: string;
  /** The API key; local servers take none (a placeholder is sent). */
  apiKey?: string;
  /** Per call, in ms (default 120 s). */
  timeoutMs?: number;
  /**
   * `strict` of the json_schema response format. Default: true when the schema meets
   * strict mode's rules (see `strictCompatible`), false otherwise (a strict server would
   * refuse it with a 400).
   */
  strict?: boolean;
}

export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

/** Estimated tokens of a text: characters / 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Milliseconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The ModelCallError for what the SDK threw. */
export function mapOpenAIError(err: unknown): ModelCallError {
  if (err instanceof ModelCallError) return err;
  const options = { cause: err };
  if (err instanceof APIConnectionTimeoutError)
    return new ModelCallError("the model call timed out", "timeout", undefined, options);
  if (err instanceof APIUserAbortError)
    return new ModelCallError("the model call was aborted", "timeout", undefined, options);
  if (err instanceof APIConnectionError)
    return new ModelCallError(`cannot reach the model server: ${err.message}`, "server", undefined, options);
  if (err instanceof APIError) {
    const api = err as APIError<number | undefined, Headers | undefined>;
    const status: number = api.status ?? 0;
    const headers: Headers | undefined = api.headers;
    const what = `the model server answered ${status}: ${api.message}`;
    if (status === 429) return new ModelCallError(what, "rate_limited", retryAfterMs(headers), options);
    if (status === 401 || status === 403) return new ModelCallError(what, "auth", undefined, options);
    if (status === 408) return new ModelCallError(what, "timeout", undefined, options);
    if (status >= 500) return new ModelCallError(what, "server", retryAfterMs(headers), options);
    return new ModelCallError(what, "bad_request", undefined, options);
  }
  if (err instanceof SyntaxError)
    return new ModelCallError(
      `the model server's answer is not valid JSON: ${err.message}`,
      "server",
      undefined,
      options,
    );
  const message = err instanceof Error ? err.message : String(err);
  return new ModelCallError(`the model call failed: ${message}`, "server", undefined, options);
}

/**
 * Whether a schema meets OpenAI strict structured output's rules: every object lists all its
 * properties in `required` and sets `additionalProperties: false`, at every depth.
 */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  if (schema === null || typeof schema !== "object") return true;
  const s = schema as Record<string, unknown>;
  const isObject = s.type === "object" || (Array.isArray(s.type) && s.type.includes("object"));
  if (isObject) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
    if (s.additionalProperties !== false) return false;
    if (!Object.keys(props).every((k) => required.includes(k))) return false;
  }
  return Object.entries(s).every(
    ([k, v]) => k === "enum" || k === "const" || k === "default" || strictCompatible(v),
  );
}

/**
 * How a call asks for JSON: `json_schema` (structured output), else `json_object` (JSON mode,
 * the schema in the system message), else no response format at all (the schema in the
 * system message; the answer is checked against it as always).
 */
export type ResponseFormat = "json_schema" | "json_object" | "none";

/** The format each server and model settled on, learned from their 400s: `baseUrl \0 model`. */
const settled = new Map<string, ResponseFormat>();
const MAX_SETTLED = 256;

/** A 400 (or 422) that refuses the response format rather than the request. */
export function refusesFormat(err: unknown): boolean {
  if (!(err instanceof APIError)) return false;
  const status = (err as APIError<number | undefined>).status;
  return (
    (status === 400 || status === 422) &&
    /response[_ ]format|json[_ ]schema|json[_ ]object|structured output/i.test(err.message)
  );
}

const NEXT_FORMAT: Record<ResponseFormat, ResponseFormat | undefined> = {
  json_schema: "json_object",
  json_object: "none",
  none: undefined,
};

export class OpenAICompatibleClient implements ModelClient {
  readonly #sdk: OpenAI;
  readonly #strict: boolean | undefined;
  readonly #baseUrl: string;

  constructor(opts: OpenAIClientOptions) {
    this.#sdk = new OpenAI({
      apiKey: opts.apiKey || "none",
      baseURL: opts.baseUrl,
      maxRetries: 0,
      timeout: opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    });
    this.#strict = opts.strict;
    this.#baseUrl = opts.baseUrl;
  }

  /**
   * One completion. A server that refuses `json_schema` (DeepSeek's API, older models and
   * servers) is asked again at once in JSON mode, and one that refuses that too with no
   * response format; what it took is kept for its later calls with the same model.
   */
  async call(call: ModelCall): Promise<ModelAnswer> {
    const key = `${this.#baseUrl}\u0000${call.model}`;
    let format = settled.get(key) ?? "json_schema";
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    for (;;) {
      try {
        completion = await this.#create(call, format);
        break;
      } catch (err) {
        const next = NEXT_FORMAT[format];
        if (next === undefined || !refusesFormat(err)) throw mapOpenAIError(err);
        format = next;
        if (!settled.has(key) && settled.size >= MAX_SETTLED) settled.delete(settled.keys().next().value!);
        settled.set(key, format);
      }
    }
    const choice = completion.choices?.[0];
    if (!choice) throw new ModelCallError("the model server answered no choices", "server");
    const message = choice.message;
    if (message.refusal) throw new ModelCallError(`the model refused: ${message.refusal}`, "bad_request");
    const text = message.content ?? "";
    const truncated = choice.finish_reason === "length" ? { truncated: true } : {};
    const usage = completion.usage;
    if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens))
      return {
        text,
        tokensIn: usage.prompt_tokens,
        tokensOut: usage.completion_tokens,
        estimated: false,
        ...truncated,
      };
    return {
      text,
      tokensIn: estimateTokens(call.system + call.prompt),
      tokensOut: estimateTokens(text),
      estimated: true,
      ...truncated,
    };
  }

  #create(call: ModelCall, format: ResponseFormat): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    const system =
      format === "json_schema"
        ? call.system
        : `${call.system}\n\nAnswer with one JSON object that matches this JSON Schema (${call.schemaName}):\n` +
          JSON.stringify(call.schema);
    const response_format: OpenAI.Chat.Completions.ChatCompletionCreateParams["response_format"] =
      format === "json_schema"
        ? {
            type: "json_schema",
            json_schema: {
              name: call.schemaName,
              schema: call.schema,
              strict: this.#strict ?? strictCompatible(call.schema),
            },
          }
        : format === "json_object"
          ? { type: "json_object" }
          : undefined;
    return this.#sdk.chat.completions.create(
      {
        model: call.model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: call.prompt },
        ],
        ...(response_format ? { response_format } : {}),
      },
      { signal: call.signal },
    );
  }
}
