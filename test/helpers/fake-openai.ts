/**
 * A real, local OpenAI-compatible HTTP server for tests (node:http on 127.0.0.1, port 0).
 *
 *     const fake = await startFakeOpenAI();          // or startFakeOpenAI({ latencyMs: 200 })
 *     fake.baseUrl                                   // "http://127.0.0.1:<port>/v1": a backend's base_url
 *     fake.enqueue({ json: { questions: [] } });     // the next call answers this JSON as its content
 *     fake.enqueue({ status: 429, retryAfter: 2 });  // then a 429 with `Retry-After: 2`
 *     fake.handler = (req) => ({ json: answerFor(req.body) });  // when the queue is empty
 *     fake.requests[0].body.model                    // every request, in arrival order
 *     await fake.close();
 *
 * Routes: `POST /v1/chat/completions` and `GET /v1/models` (lists `fake.models`).
 *
 * A reply (`FakeReply`) is one of:
 * - `{ json: value }`: a chat completion whose message content is `JSON.stringify(value)`;
 * - `{ content: "text" }`: a chat completion with this exact content (e.g. broken JSON
 *   from the model: `{ content: "{ not json" }`); either may set `finishReason` (default
 *   `stop`; `length` for an answer cut off at the output limit);
 * - `{ status: 429 | 500 | 400 | ..., retryAfter?: seconds, body?: object }`: an error answer
 *   (an OpenAI-style `{ error: { message, type, code } }` body unless `body` is given);
 * - `{ hang: true }`: never answers (the client's timeout or abort ends it);
 * - `{ raw: "text", status?: 200 }`: this body as is, `content-type: application/json`
 *   (a broken HTTP body, e.g. `{ raw: "{\"id\": " }`).
 *
 * Every reply may carry `delayMs` (added to the server's `latencyMs`) and, for
 * completions, `usage: { prompt_tokens, completion_tokens }` (default: characters / 4 of the
 * messages and of the content). `fake.handler` runs when the queue is empty; with neither,
 * the server answers 500 "nothing scripted" and counts it in `fake.unscripted`.
 * `fake.maxConcurrent` is the most completions in flight at once (for parallelism tests).
 * To answer by review stage, route in the handler on `req.body.response_format?.json_schema?.name`
 * (the call's `schemaName`) or on `req.prompt`.
 *
 * Modes (ready-made handlers, beside the scripted review model of test/core/review/e2e-helpers):
 * - `startFakeOpenAI({ mode: "minimal" })` or `handler: minimalInstance`: a weak model that
 *   answers every JSON schema with its smallest valid instance: one item per array, the
 *   first enum value, the number 1, `false`, and for every string the first sentence of the
 *   spec text quoted in the prompt (inside its `spec_text` fence);
 * - `judgeGarbage(base)`: answers the judge (`judge_groups`) with text that is not JSON, and
 *   every other call with `base`.
 * `fake.replies` records the content of every completion answered (for asserts on what a
 * reader said).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ChatMessage {
  role: string;
  content: string | Array<{ type: string; text?: string }>;
}

/** The body of a chat completion request as the client sent it. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  response_format?: {
    type: string;
    json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  };
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (chat completions); `{}` for a GET. */
  body: ChatRequestBody;
  /** The raw body text. */
  text: string;
  /** Message contents joined: the system prompt then the user prompt, for quick asserts. */
  prompt: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type FakeReply = { delayMs?: number } & (
  | { json: unknown; usage?: Usage; finishReason?: string }
  | { content: string; usage?: Usage; finishReason?: string }
  | { status: number; retryAfter?: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
  | { raw: string; status?: number }
);

export type FakeHandler = (req: RecordedRequest) => FakeReply | Promise<FakeReply>;

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  port: number;
  /** Requests received (chat completions and model lists), in arrival order. */
  requests: RecordedRequest[];
  /** Completion requests only. */
  readonly completions: RecordedRequest[];
  /** Queue replies; each completion request takes the first. */
  enqueue(...replies: FakeReply[]): void;
  /** Answers completions when the queue is empty. */
  handler?: FakeHandler;
  /** Model ids `GET /v1/models` lists. */
  models: string[];
  /** Completion requests that found nothing scripted (answered 500). */
  unscripted: number;
  /** Most completion requests in flight at once so far. */
  maxConcurrent: number;
  /** The content of every completion answered, with its request, in answer order. */
  replies: Array<{ request: RecordedRequest; content: string }>;
  /** Forget requests, queue and counters (keeps the handler and latency). */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  /** Delay before every completion answer, in ms. */
  latencyMs?: number;
  handler?: FakeHandler;
  models?: string[];
  /** A ready-made handler: `minimal` is `minimalInstance`. */
  mode?: "minimal";
}

type Schema = Record<string, unknown>;

/** The first sentence of the fenced spec text of a prompt (or of its last line). */
export function quotedSentence(prompt: string): string {
  const fenced = /<(spec_text_\d+)[^>]*>\n([\s\S]*?)\n<\/\1>/.exec(prompt)?.[2] ?? prompt;
  const lines = fenced
    .split("\n")
    .map((l) => l.replace(/^\s*(?:[-*>]|\d+\.)\s+/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !/^=== .* ===$/.test(l) && !l.startsWith("---"));
  const line = lines[0] ?? "The text says nothing.";
  return /^(.+?[.!?])(?:\s|$)/.exec(line)?.[1] ?? line;
}

/** The smallest valid instance of a JSON Schema, strings filled with `sentence`. */
export function minimalInstanceOf(schema: Schema, sentence: string, root: Schema = schema): unknown {
  const ref = schema["$ref"];
  if (typeof ref === "string") {
    const name = ref.replace(/^#\/(?:\$defs|definitions)\//, "");
    const defs = (root["$defs"] ?? root["definitions"]) as Record<string, Schema> | undefined;
    return minimalInstanceOf(defs?.[name] ?? {}, sentence, root);
  }
  const alt = (schema["anyOf"] ?? schema["oneOf"]) as Schema[] | undefined;
  if (alt?.length) return minimalInstanceOf(alt[0]!, sentence, root);
  if (Array.isArray(schema["enum"])) return (schema["enum"] as unknown[])[0];
  if (schema["const"] !== undefined) return schema["const"];
  const type = Array.isArray(schema["type"]) ? (schema["type"] as string[])[0] : schema["type"];
  switch (type) {
    case "object": {
      const props = (schema["properties"] ?? {}) as Record<string, Schema>;
      return Object.fromEntries(
        Object.entries(props).map(([k, v]) => [k, minimalInstanceOf(v, sentence, root)]),
      );
    }
    case "array":
      return schema["maxItems"] === 0
        ? []
        : [minimalInstanceOf((schema["items"] ?? {}) as Schema, sentence, root)];
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return sentence;
  }
}

/** The weak model: the smallest valid instance of the request's schema. */
export const minimalInstance: FakeHandler = (req) => {
  const schema = (req.body.response_format?.json_schema?.schema ?? { type: "object" }) as Schema;
  return { json: minimalInstanceOf(schema, quotedSentence(req.prompt)) };
};

/** Garbage (not JSON) for the judge; `base` for every other call. */
export function judgeGarbage(base: FakeHandler): FakeHandler {
  return (req) =>
    req.body.response_format?.json_schema?.name === "judge_groups"
      ? { content: "Readers 1 and 2 agree, mostly. Reader 3 is close enough!" }
      : base(req);
}

function messagesText(messages: ChatMessage[] | undefined): string {
  return (messages ?? [])
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("")))
    .join("\n");
}

const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: FakeReply[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let counter = 0;

  const fake: FakeOpenAI = {
    baseUrl: "",
    port: 0,
    requests: [],
    get completions() {
      return this.requests.filter((r) => r.path.endsWith("/chat/completions"));
    },
    enqueue: (...replies) => void queue.push(...replies),
    handler: opts.handler ?? (opts.mode === "minimal" ? minimalInstance : undefined),
    replies: [],
    models: opts.models ?? ["fake-model"],
    unscripted: 0,
    maxConcurrent: 0,
    reset() {
      this.requests.length = 0;
      queue.length = 0;
      this.unscripted = 0;
      this.maxConcurrent = 0;
      this.replies.length = 0;
    },
    close: () => Promise.resolve(),
  };

  const complete = async (rec: RecordedRequest, res: ServerResponse) => {
    let reply = queue.shift();
    if (!reply && fake.handler) reply = await fake.handler(rec);
    const wait = (opts.latencyMs ?? 0) + (reply?.delayMs ?? 0);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (!reply) {
      fake.unscripted++;
      sendJson(res, 500, {
        error: { message: "fake-openai: nothing scripted for this request", type: "server_error" },
      });
      return;
    }
    if ("hang" in reply) return; // the socket stays open until the client gives up or close()
    if ("raw" in reply) {
      res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
      res.end(reply.raw);
      return;
    }
    if ("status" in reply) {
      const headers: Record<string, string> = { ...reply.headers };
      if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
      const body = reply.body ?? {
        error: {
          message: `fake-openai: scripted ${reply.status}`,
          type:
            reply.status === 429
              ? "rate_limit_exceeded"
              : reply.status >= 500
                ? "server_error"
                : "invalid_request_error",
          code: null,
        },
      };
      sendJson(res, reply.status, body, headers);
      return;
    }
    const content = "json" in reply ? JSON.stringify(reply.json) : reply.content;
    fake.replies.push({ request: rec, content });
    const usage = reply.usage ?? { prompt_tokens: tokens(rec.prompt), completion_tokens: tokens(content) };
    sendJson(res, 200, {
      id: `chatcmpl-fake-${++counter}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: rec.body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, refusal: null },
          finish_reason: reply.finishReason ?? "stop",
          logprobs: null,
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const path = (req.url ?? "/").split("?")[0]!;
      let body = {} as ChatRequestBody;
      if (text) {
        try {
          body = JSON.parse(text) as ChatRequestBody;
        } catch {
          sendJson(res, 400, {
            error: { message: "fake-openai: request body is not JSON", type: "invalid_request_error" },
          });
          return;
        }
      }
      const rec: RecordedRequest = {
        method: req.method ?? "GET",
        path,
        headers: req.headers,
        body,
        text,
        prompt: messagesText(body.messages),
      };
      fake.requests.push(rec);
      if (req.method === "GET" && path.endsWith("/models")) {
        sendJson(res, 200, {
          object: "list",
          data: fake.models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
        });
        return;
      }
      if (req.method === "POST" && path.endsWith("/chat/completions")) {
        inFlight++;
        fake.maxConcurrent = Math.max(fake.maxConcurrent, inFlight);
        res.on("close", () => inFlight--);
        await complete(rec, res);
        return;
      }
      sendJson(res, 404, {
        error: { message: `fake-openai: no route ${req.method} ${path}`, type: "not_found" },
      });
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: "server_error" } });
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  fake.port = port;
  fake.baseUrl = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return fake;
}
