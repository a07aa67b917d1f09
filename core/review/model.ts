/**
 * What the review core needs from a model: one structured call. Implementations live
 * outside core (server/models/): hosted providers through the `openai` SDK, any
 * OpenAI-compatible server through `base_url`, and coding-agent CLIs as subprocesses.
 */

/** A JSON Schema object (draft 2020-12) the answer must satisfy. */
export type JsonSchema = Record<string, unknown>;

export interface ModelCall {
  /** Which step asks, e.g. `questions`, `reader`, `judge`, `claims`, `findings`, `fix`. */
  stage: string;
  /** Model name as configured for the role. */
  model: string;
  system: string;
  prompt: string;
  /** Name of the schema (`[a-zA-Z0-9_-]`, as response_format requires). */
  schemaName: string;
  schema: JsonSchema;
  /** Abort the call (timeouts, a cancelled run). */
  signal?: AbortSignal;
}

export interface ModelAnswer {
  /** The raw text the model returned (JSON expected; the caller validates it). */
  text: string;
  tokensIn: number;
  tokensOut: number;
  /** True when the token counts are estimated (a CLI that reports none). */
  estimated: boolean;
  /** True when the server stopped the answer at its output limit (`finish_reason: length`). */
  truncated?: boolean;
}

/**
 * Errors a client throws, so the caller knows whether a retry can help.
 * `retryAfterMs` comes from a 429's Retry-After.
 */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly kind: "timeout" | "rate_limited" | "server" | "exit" | "bad_request" | "auth",
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ModelCallError";
  }

  get retryable(): boolean {
    return (
      this.kind === "timeout" ||
      this.kind === "rate_limited" ||
      this.kind === "server" ||
      this.kind === "exit"
    );
  }
}

export interface ModelClient {
  call(call: ModelCall): Promise<ModelAnswer>;
}
