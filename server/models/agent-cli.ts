/**
 * A ModelClient that runs a coding-agent CLI as a subprocess (`agent_cli` backends): one of
 * four presets, or a custom command. In each argument `{model}` becomes the model name,
 * `{schema}` the path of a temp file holding the JSON Schema and `{prompt_file}` the path
 * of a temp file holding the prompt. The prompt goes on stdin or in that file. The CLI
 * runs in a fresh temp folder; its stdout is the answer (the JSON object in it is taken
 * out of any surrounding chatter); a non-zero exit is a ModelCallError `exit`. CLIs
 * report no token use, so counts are estimated (characters / 4).
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import {
  ModelCallError,
  type ModelAnswer,
  type ModelCall,
  type ModelClient,
} from "../../core/review/model.js";
import { DEFAULT_CALL_TIMEOUT_MS, estimateTokens } from "./openai-client.js";

export type PresetName = "agent_preset_1" | "agent_preset_2" | "agent_preset_3" | "agent_preset_4";
export type PromptVia = "stdin" | "file";

export interface AgentPreset {
  preset: PresetName;
  /** The CLI the preset stands for. */
  name: string;
  command: string[];
  prompt_via: PromptVia;
  /** The environment variable a backend's secret is handed in as. */
  secret_env: string;
}

export const AGENT_PRESETS: Record<PresetName, AgentPreset> = {
  agent_preset_1: {
    preset: "agent_preset_1",
    name: "Claude Code",
    command: ["claude", "-p", "--model", "{model}", "--output-format", "text"],
    prompt_via: "stdin",
    secret_env: "ANTHROPIC_API_KEY",
  },
  agent_preset_2: {
    preset: "agent_preset_2",
    name: "OpenAI Codex CLI",
    command: [
      "codex",
      "exec",
      "--model",
      "{model}",
      "--output-schema",
      "{schema}",
      "--skip-git-repo-check",
      "-",
    ],
    prompt_via: "stdin",
    secret_env: "OPENAI_API_KEY",
  },
  agent_preset_3: {
    preset: "agent_preset_3",
    name: "Gemini CLI",
    command: ["gemini", "--model", "{model}", "--output-format", "text"],
    prompt_via: "stdin",
    secret_env: "GEMINI_API_KEY",
  },
  agent_preset_4: {
    preset: "agent_preset_4",
    name: "Aider",
    command: [
      "aider",
      "--model",
      "{model}",
      "--message-file",
      "{prompt_file}",
      "--yes-always",
      "--no-git",
      "--no-pretty",
      "--no-stream",
    ],
    prompt_via: "file",
    secret_env: "AIDER_API_KEY",
  },
};

/** The environment variable a custom command gets the backend's secret in. */
export const CUSTOM_SECRET_ENV = "SPEC_REVIEW_AGENT_SECRET";

export function isPresetName(value: string): value is PresetName {
  return value in AGENT_PRESETS;
}

/** Whether `program` is an executable file on PATH (or at its path, when it has one). */
export function onPath(program: string, env: Record<string, string | undefined> = process.env): boolean {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (program.includes("/") || isAbsolute(program)) return executable(program);
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  return (env.PATH ?? "")
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((ext) => executable(join(dir, program + ext))));
}

/**
 * The JSON answer in a CLI's output: the whole output when it is JSON, else a fenced
 * ```json block, else the text from the first `{` to the last `}`. Returned as is when none
 * is found (the caller's schema check says what is wrong).
 */
export function extractJson(output: string): string {
  const text = output.trim();
  const parses = (s: string) => {
    try {
      JSON.parse(s);
      return true;
    } catch {
      return false;
    }
  };
  if (parses(text)) return text;
  for (const m of text.matchAll(/```(?:json)?\s*\n([\s\S]*?)\n```/g))
    if (parses(m[1]!.trim())) return m[1]!.trim();
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first && parses(text.slice(first, last + 1))) return text.slice(first, last + 1);
  return text;
}

export interface AgentCliOptions {
  command: string[];
  promptVia: PromptVia;
  /** The backend's secret, handed to the process in `secretEnv`. */
  secret?: string;
  secretEnv?: string;
  /** Per call, in ms (default 120 s). */
  timeoutMs?: number;
  /** Extra environment for the process. */
  env?: Record<string, string>;
}

/** The client of a preset, or of a custom command. */
export function agentCliOptions(
  preset: PresetName | "custom",
  custom: { command?: string[]; promptVia?: PromptVia },
): Pick<AgentCliOptions, "command" | "promptVia" | "secretEnv"> {
  if (preset === "custom") {
    if (!custom.command?.length) throw new Error("a custom agent CLI needs a command");
    return { command: custom.command, promptVia: custom.promptVia ?? "stdin", secretEnv: CUSTOM_SECRET_ENV };
  }
  const p = AGENT_PRESETS[preset];
  return { command: p.command, promptVia: custom.promptVia ?? p.prompt_via, secretEnv: p.secret_env };
}

/** The whole text the CLI gets: instructions, prompt, and the schema its answer must satisfy. */
export function agentPrompt(call: ModelCall): string {
  return [
    call.system,
    call.prompt,
    "Answer with one JSON object only, no other text. It must satisfy this JSON Schema " +
      `(\`${call.schemaName}\`):`,
    JSON.stringify(call.schema, null, 2),
  ].join("\n\n");
}

function tail(text: string, max = 400): string {
  const t = text.trim();
  return t.length > max ? "…" + t.slice(-max) : t;
}

export class AgentCliClient implements ModelClient {
  constructor(readonly opts: AgentCliOptions) {
    if (opts.command.length === 0) throw new Error("an agent CLI needs a command");
  }

  async call(call: ModelCall): Promise<ModelAnswer> {
    const dir = mkdtempSync(join(tmpdir(), "sr-agent-"));
    try {
      const prompt = agentPrompt(call);
      const schemaFile = join(dir, "schema.json");
      const promptFile = join(dir, "prompt.md");
      writeFileSync(schemaFile, JSON.stringify(call.schema, null, 2), { mode: 0o600 });
      writeFileSync(promptFile, prompt, { mode: 0o600 });
      const argv = this.opts.command.map((arg) =>
        arg
          .replaceAll("{model}", call.model)
          .replaceAll("{schema}", schemaFile)
          .replaceAll("{prompt_file}", promptFile),
      );
      const stdout = await this.#run(
        argv,
        this.opts.promptVia === "stdin" ? prompt : undefined,
        dir,
        call.signal,
      );
      const text = extractJson(stdout);
      return { text, tokensIn: estimateTokens(prompt), tokensOut: estimateTokens(stdout), estimated: true };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  #run(argv: string[], stdin: string | undefined, cwd: string, signal?: AbortSignal): Promise<string> {
    const [program, ...args] = argv as [string, ...string[]];
    const env: Record<string, string | undefined> = { ...process.env, ...this.opts.env };
    if (this.opts.secret && this.opts.secretEnv) env[this.opts.secretEnv] = this.opts.secret;
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new ModelCallError("the agent CLI call was aborted", "timeout"));
      const child = spawn(program, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let ended: ModelCallError | undefined;
      const stop = (why: ModelCallError) => {
        ended ??= why;
        child.kill("SIGKILL");
      };
      const timer = setTimeout(
        () =>
          stop(
            new ModelCallError(`the agent CLI ${program} did not answer within ${timeoutMs} ms`, "timeout"),
          ),
        timeoutMs,
      );
      const onAbort = () => stop(new ModelCallError("the agent CLI call was aborted", "timeout"));
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      child.stdout.on("data", (c: Buffer) => out.push(c));
      child.stderr.on("data", (c: Buffer) => err.push(c));
      child.stdin.on("error", () => {}); // a CLI that exits without reading stdin
      child.on("error", (e: NodeJS.ErrnoException) => {
        done();
        reject(
          e.code === "ENOENT"
            ? new ModelCallError(
                `the agent CLI ${program} is not installed (not on PATH)`,
                "bad_request",
                undefined,
                { cause: e },
              )
            : new ModelCallError(
                `the agent CLI ${program} could not start: ${e.message}`,
                "exit",
                undefined,
                { cause: e },
              ),
        );
      });
      child.on("close", (code, sig) => {
        done();
        if (ended) return reject(ended);
        const stderr = Buffer.concat(err).toString("utf8");
        if (code !== 0)
          return reject(
            new ModelCallError(
              `the agent CLI ${program} exited with ${code ?? sig}${stderr.trim() ? `: ${tail(stderr)}` : ""}`,
              "exit",
            ),
          );
        resolve(Buffer.concat(out).toString("utf8"));
      });
      child.stdin.end(stdin ?? "");
    });
  }
}
