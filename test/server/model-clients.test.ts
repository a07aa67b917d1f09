/**
 * The model clients against real processes: the `openai` SDK against a local
 * OpenAI-compatible server, and agent CLIs run as subprocesses (the fake agent script).
 * Every failure must come out as the right ModelCallError kind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ModelCallError, type ModelCall } from "../../core/review/model.js";
import { OpenAICompatibleClient, retryAfterMs, strictCompatible } from "../../server/models/openai-client.js";
import { AgentCliClient, extractJson, onPath } from "../../server/models/agent-cli.js";
import { modelClientFor } from "../../server/models/clients.js";
import { PROVIDERS } from "../../server/models/providers.js";
import { modelCallTimeoutMs, reviewRetryFor } from "../../server/models/service.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";

const AGENT = resolve(import.meta.dirname, "../../fixtures/fake-agent-cli/agent.mjs");

const SCHEMA = {
  type: "object",
  properties: { verdict: { type: "string" } },
  required: ["verdict"],
  additionalProperties: false,
};

const CALL: ModelCall = {
  stage: "findings",
  model: "gpt-test",
  system: "You review specs.",
  prompt: "Find the gaps in section 2.",
  schemaName: "findings",
  schema: SCHEMA,
};

async function failure(p: Promise<unknown>): Promise<ModelCallError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ModelCallError) return err;
    throw new Error(`expected a ModelCallError, got ${String(err)}`, { cause: err });
  }
  throw new Error("expected the call to fail");
}

describe("OpenAI-compatible client", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const client = (timeoutMs = 2_000) =>
    new OpenAICompatibleClient({ baseUrl: fake.baseUrl, apiKey: "sk-test-secret-1234", timeoutMs });

  it("sends the system and user prompts with a json_schema response format and reads the usage", async () => {
    fake.enqueue({ json: { verdict: "fine" }, usage: { prompt_tokens: 120, completion_tokens: 7 } });
    const answer = await client().call(CALL);
    expect(answer).toEqual({ text: '{"verdict":"fine"}', tokensIn: 120, tokensOut: 7, estimated: false });
    expect(fake.completions).toHaveLength(1);
    const req = fake.completions[0]!;
    expect(req.body.model).toBe("gpt-test");
    expect(req.body.messages).toEqual([
      { role: "system", content: "You review specs." },
      { role: "user", content: "Find the gaps in section 2." },
    ]);
    expect(req.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "findings", schema: SCHEMA, strict: true },
    });
    expect(req.headers.authorization).toBe("Bearer sk-test-secret-1234");
  });

  it("asks for strict output only when the schema meets strict mode's rules", async () => {
    const loose = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a"],
    };
    const nested = {
      type: "object",
      properties: {
        items: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } },
      },
      required: ["items"],
      additionalProperties: false,
    };
    fake.enqueue({ json: {} }, { json: {} });
    await client().call({ ...CALL, schema: loose });
    await client().call({ ...CALL, schema: nested });
    expect(fake.completions.map((r) => r.body.response_format?.json_schema?.strict)).toEqual([false, false]);
    expect(strictCompatible(SCHEMA)).toBe(true);
    expect(strictCompatible({ ...nested, properties: { items: { type: "array", items: SCHEMA } } })).toBe(
      true,
    );
  });

  it("estimates the tokens when the server reports no usage", async () => {
    const completion = {
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [
        { index: 0, message: { role: "assistant", content: '{"verdict":"ok"}' }, finish_reason: "stop" },
      ],
    };
    fake.enqueue({ raw: JSON.stringify(completion) });
    const answer = await client().call(CALL);
    expect(answer.estimated).toBe(true);
    expect(answer.tokensIn).toBe(Math.ceil((CALL.system + CALL.prompt).length / 4));
    expect(answer.tokensOut).toBe(Math.ceil('{"verdict":"ok"}'.length / 4));
  });

  it("says an answer was cut off when the server stopped it at the output limit", async () => {
    fake.enqueue({ content: '{"verdict": "fi', finishReason: "length" }, { json: { verdict: "fine" } });
    expect(await client().call(CALL)).toMatchObject({ text: '{"verdict": "fi', truncated: true });
    expect((await client().call(CALL)).truncated).toBeUndefined();
  });

  it("returns broken JSON content as text, for the caller's schema check", async () => {
    fake.enqueue({ content: '{"verdict": "fi' });
    expect((await client().call(CALL)).text).toBe('{"verdict": "fi');
  });

  it("asks again in JSON mode, the schema in the system message, when the server refuses json_schema; and keeps to it", async () => {
    const call = { ...CALL, model: "json-mode-only" };
    fake.handler = (req) =>
      req.body.response_format?.type === "json_schema"
        ? {
            status: 400,
            body: {
              error: {
                message: "This response_format type is unavailable now",
                type: "invalid_request_error",
              },
            },
          }
        : { json: { verdict: "fine" } };
    expect((await client().call(call)).text).toBe('{"verdict":"fine"}');
    // A new client (as each run makes) for the same server and model asks in JSON mode at once.
    expect((await client().call(call)).text).toBe('{"verdict":"fine"}');
    expect(fake.completions.map((r) => r.body.response_format?.type)).toEqual([
      "json_schema",
      "json_object",
      "json_object",
    ]);
    const system = fake.completions[1]!.body.messages[0]!.content as string;
    expect(system.startsWith("You review specs.")).toBe(true);
    expect(system).toContain(`JSON Schema (findings):\n${JSON.stringify(SCHEMA)}`);
    expect(fake.completions[1]!.body.messages[1]).toEqual({ role: "user", content: CALL.prompt });
    // Another model on the same server starts from json_schema again.
    fake.reset();
    fake.handler = () => ({ json: { verdict: "fine" } });
    await client().call(CALL);
    expect(fake.completions.map((r) => r.body.response_format?.type)).toEqual(["json_schema"]);
  });

  it("asks with no response format when JSON mode is refused too", async () => {
    fake.handler = (req) =>
      req.body.response_format
        ? { status: 400, body: { error: { message: "response_format is not supported by this model" } } }
        : { json: { verdict: "plain" } };
    const answer = await client().call({ ...CALL, model: "no-json-modes" });
    expect(answer.text).toBe('{"verdict":"plain"}');
    expect(fake.completions.map((r) => r.body.response_format?.type ?? "none")).toEqual([
      "json_schema",
      "json_object",
      "none",
    ]);
    expect("response_format" in fake.completions[2]!.body).toBe(false);
  });

  it("does not ask again after a 400 that is about something else", async () => {
    fake.enqueue({
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens",
          type: "invalid_request_error",
        },
      },
    });
    const err = await failure(client().call({ ...CALL, model: "small-context" }));
    expect(err.kind).toBe("bad_request");
    expect(err.message).toMatch(/maximum context length/);
    expect(fake.completions).toHaveLength(1);
  });

  it("maps 429 with Retry-After to rate_limited with the wait, and does not retry by itself", async () => {
    fake.enqueue({ status: 429, retryAfter: 3 }, { json: { verdict: "late" } });
    const err = await failure(client().call(CALL));
    expect(err.kind).toBe("rate_limited");
    expect(err.retryAfterMs).toBe(3000);
    expect(err.retryable).toBe(true);
    expect(fake.completions).toHaveLength(1);
  });

  it.each([
    [500, "server", true],
    [503, "server", true],
    [401, "auth", false],
    [403, "auth", false],
    [400, "bad_request", false],
    [404, "bad_request", false],
  ] as const)("maps %i to %s", async (status, kind, retryable) => {
    fake.enqueue({ status });
    const err = await failure(client().call(CALL));
    expect(err.kind).toBe(kind);
    expect(err.retryable).toBe(retryable);
    expect(err.message).toContain(String(status));
    expect(fake.completions).toHaveLength(1);
  });

  it("maps a server that never answers to timeout", async () => {
    fake.enqueue({ hang: true });
    const started = Date.now();
    const err = await failure(client(300).call(CALL));
    expect(err.kind).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("maps an aborted call to timeout", async () => {
    fake.enqueue({ hang: true });
    const err = await failure(client(10_000).call({ ...CALL, signal: AbortSignal.timeout(200) }));
    expect(err.kind).toBe("timeout");
  });

  it("maps a body that is not JSON to server", async () => {
    fake.enqueue({ raw: '{"id": "chatcmpl-1", "choices": [' });
    const err = await failure(client().call(CALL));
    expect(err.kind).toBe("server");
    expect(err.retryable).toBe(true);
  });

  it("maps a refused connection to server", async () => {
    const port = await new Promise<number>((done) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    const c = new OpenAICompatibleClient({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 2_000 });
    const err = await failure(c.call(CALL));
    expect(err.kind).toBe("server");
  });

  it("reads Retry-After as seconds, as an HTTP date, and retry-after-ms", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": "Sat, 21 Nov 2026 10:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({}), now)).toBeUndefined();
  });

  it("modelClientFor: a provider kind goes to base_url when set, else to its provider's address", async () => {
    fake.enqueue({ json: { verdict: "via base_url" } });
    const viaBase = modelClientFor({ kind: "provider_3", baseUrl: fake.baseUrl }, "key-abcdefgh");
    expect((await viaBase.call(CALL)).text).toBe('{"verdict":"via base_url"}');
    expect(fake.completions[0]!.headers.authorization).toBe("Bearer key-abcdefgh");
    expect(PROVIDERS.provider_1.baseUrl).toBe("https://api.openai.com/v1");
    expect(new Set(Object.values(PROVIDERS).map((p) => p.baseUrl)).size).toBe(4);
    expect(() => modelClientFor({ kind: "provider_9" }, undefined)).toThrow(/unknown backend kind/);
  });
});

describe("agent CLI client", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sr-agent-test-"));
    return () => rmSync(dir, { recursive: true, force: true });
  });
  const logOf = (file: string) =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            argv: string[];
            prompt: string;
            prompt_via: string;
            model: string;
            schema: unknown;
          },
      );

  it("hands the prompt on stdin, replaces {model} and {schema}, and estimates the tokens", async () => {
    const log = join(dir, "log.jsonl");
    const client = new AgentCliClient({
      command: [
        process.execPath,
        AGENT,
        "--model",
        "{model}",
        "--schema",
        "{schema}",
        "--log",
        log,
        "--answer",
        '{"verdict":"stdin"}',
      ],
      promptVia: "stdin",
    });
    const answer = await client.call(CALL);
    expect(answer.text).toBe('{"verdict":"stdin"}');
    expect(answer.estimated).toBe(true);
    const [run] = logOf(log);
    expect(run!.prompt_via).toBe("stdin");
    expect(run!.model).toBe("gpt-test");
    expect(run!.schema).toEqual(SCHEMA);
    expect(run!.prompt).toContain("You review specs.");
    expect(run!.prompt).toContain("Find the gaps in section 2.");
    expect(run!.prompt).toContain('"verdict"');
    expect(answer.tokensIn).toBe(Math.ceil(run!.prompt.length / 4));
    expect(answer.tokensOut).toBe(Math.ceil('{"verdict":"stdin"}\n'.length / 4));
  });

  it("hands the prompt in {prompt_file} when prompt_via is file, and removes its temp files", async () => {
    const log = join(dir, "log.jsonl");
    const client = new AgentCliClient({
      command: [
        process.execPath,
        AGENT,
        "--prompt-file",
        "{prompt_file}",
        "--model",
        "{model}",
        "--log",
        log,
      ],
      promptVia: "file",
    });
    const answer = await client.call(CALL);
    const [run] = logOf(log);
    expect(run!.prompt_via).toBe("file");
    expect(run!.prompt).toContain("Find the gaps in section 2.");
    expect(JSON.parse(answer.text)).toEqual({
      ok: true,
      model: "gpt-test",
      prompt_chars: run!.prompt.length,
    });
    const promptFile = run!.argv[run!.argv.indexOf("--prompt-file") + 1]!;
    expect(promptFile).toMatch(/prompt\.md$/);
    expect(() => readFileSync(promptFile)).toThrow();
  });

  it("takes the JSON object out of a chatty answer", async () => {
    const client = new AgentCliClient({
      command: [
        process.execPath,
        AGENT,
        "--answer",
        'Sure! Here it is:\n```json\n{"verdict":"chatty"}\n```\nDone.',
      ],
      promptVia: "stdin",
    });
    expect((await client.call(CALL)).text).toBe('{"verdict":"chatty"}');
    expect(extractJson('noise {"a": {"b": 1}} trailing')).toBe('{"a": {"b": 1}}');
    expect(extractJson("no json here")).toBe("no json here");
  });

  it("maps a non-zero exit to exit, with the CLI's stderr", async () => {
    const client = new AgentCliClient({
      command: [process.execPath, AGENT, "--exit", "3", "--stderr", "quota used up"],
      promptVia: "stdin",
    });
    const err = await failure(client.call(CALL));
    expect(err.kind).toBe("exit");
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("exited with 3");
    expect(err.message).toContain("quota used up");
  });

  it("plays a script: fails once, then answers", async () => {
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify([{ exit: 1 }, { json: { verdict: "second" } }]));
    const client = new AgentCliClient({
      command: [process.execPath, AGENT, "--script", script],
      promptVia: "stdin",
    });
    expect((await failure(client.call(CALL))).kind).toBe("exit");
    expect((await client.call(CALL)).text).toBe('{"verdict":"second"}');
  });

  it("kills a CLI that takes longer than the timeout", async () => {
    const client = new AgentCliClient({
      command: [process.execPath, AGENT, "--delay-ms", "5000"],
      promptVia: "stdin",
      timeoutMs: 300,
    });
    const started = Date.now();
    const err = await failure(client.call(CALL));
    expect(err.kind).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("says a program that is not installed is not installed (not retryable)", async () => {
    const client = new AgentCliClient({ command: ["sr-no-such-agent-cli", "-p"], promptVia: "stdin" });
    const err = await failure(client.call(CALL));
    expect(err.kind).toBe("bad_request");
    expect(err.message).toContain("not installed");
  });

  it("hands a custom command's secret in SPEC_REVIEW_AGENT_SECRET", async () => {
    const client = modelClientFor(
      {
        kind: "agent_cli",
        preset: "custom",
        command: [
          process.execPath,
          "-e",
          "process.stdout.write(JSON.stringify({verdict: process.env.SPEC_REVIEW_AGENT_SECRET}))",
        ],
        promptVia: "stdin",
      },
      "cli-secret-9876",
    );
    expect((await client.call(CALL)).text).toBe('{"verdict":"cli-secret-9876"}');
  });

  it("finds programs on PATH", () => {
    const bin = join(dir, "fake-claude");
    writeFileSync(bin, "#!/bin/sh\necho hi\n");
    chmodSync(bin, 0o755);
    expect(onPath("fake-claude", { PATH: dir })).toBe(true);
    expect(onPath("fake-claude", { PATH: tmpdir() })).toBe(false);
    writeFileSync(join(dir, "not-exec"), "x");
    expect(onPath("not-exec", { PATH: dir })).toBe(false);
  });
});

describe("SPEC_REVIEW_MODEL_TIMEOUT_S", () => {
  it("gives the review's per-call timeout in ms, none when unset, and refuses what is not 1 to 3600 seconds", () => {
    expect(modelCallTimeoutMs({})).toBeUndefined();
    expect(modelCallTimeoutMs({ SPEC_REVIEW_MODEL_TIMEOUT_S: " " })).toBeUndefined();
    expect(modelCallTimeoutMs({ SPEC_REVIEW_MODEL_TIMEOUT_S: "600" })).toBe(600_000);
    expect(modelCallTimeoutMs({ SPEC_REVIEW_MODEL_TIMEOUT_S: "1.5" })).toBe(1_500);
    // The review's own limit on a call stays past the client's, so a long timeout is not cut short.
    expect(reviewRetryFor(600_000)).toEqual({ timeoutMs: 660_000 });
    expect(reviewRetryFor(1_000)).toEqual({ timeoutMs: 180_000 });
    expect(reviewRetryFor(undefined)).toBeUndefined();
    for (const bad of ["0", "3601", "ten", "NaN", "-1"])
      expect(() => modelCallTimeoutMs({ SPEC_REVIEW_MODEL_TIMEOUT_S: bad }), bad).toThrow(
        /SPEC_REVIEW_MODEL_TIMEOUT_S must be a number of seconds from 1 to 3600/,
      );
  });
});
