/**
 * A ModelClient that runs a coding-agent CLI as a subprocess (`agent_cli` backends): one of
 * four presets, or a custom command. In each argument `{model}` becomes the model name,
 * `{schema}` the path of a temp file holding the JSON Schema and `{prompt_file}` the path
 * of a temp file holding the prompt. The prompt goes on stdin or in that file. The CLI
 * runs in a fresh temp folder; its stdout is the answer (the JSON object in it is taken
 * out of any surrounding chatter); a non-zero exit is a ModelCallError `exit`. CLIs
 * report no token use, so counts are estimated (characters / 4).
 */
import { execa } from "execa";
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
  /** Variables of the server's environment the CLI reads (its key, address, config folder). */
  pass_env: readonly string[];
}

export const AGENT_PRESETS: Record<PresetName, AgentPreset> = {
  agent_preset_1: {
    preset: "agent_preset_1",
    name: "Claude Code",
    command: ["claude", "-p", "--model", "{model}", "--output-format", "text"],
    prompt_via: "stdin",
    secret_env: "ANTHROPIC_API_KEY",
    pass_env: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR"],
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
    pass_env: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"],
  },
  agent_preset_3: {
    preset: "agent_preset_3",
    name: "Gemini CLI",
    command: ["gemini", "--model", "{model}", "--output-format", "text"],
    prompt_via: "stdin",
    secret_env: "GEMINI_API_KEY",
    pass_env: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_APPLICATION_CREDENTIALS"],
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
    pass_env: ["AIDER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_BASE"],
  },
};

/** The most a CLI may print on stdout or stderr before it is stopped: 16 MiB. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * What an agent CLI inherits from the server's environment: what any program needs to run
 * (PATH, HOME, locale, temp folder, proxies and CA certificates), never the server's own
 * settings or secrets (DATABASE_URL, SPEC_REVIEW_SECRET_KEY, other keys). A preset adds the
 * variables its CLI reads (`passEnv`); the backend's secret comes in its `secret_env`.
 */
export const BASE_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "NO_COLOR",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Windows
  "SYSTEMROOT",
  "SystemRoot",
  "COMSPEC",
  "PATHEXT",
  "WINDIR",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "PROGRAMDATA",
] as const;

/** Never handed to a CLI, whatever a preset or option names. */
export const NEVER_ENV = ["DATABASE_URL", "SPEC_REVIEW_SECRET_KEY", "TEST_DATABASE_URL"] as const;

/** The environment of one CLI run (see BASE_ENV). */
export function agentEnv(
  from: Record<string, string | undefined>,
  opts: Pick<AgentCliOptions, "passEnv" | "env" | "secret" | "secretEnv">,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue;
    if ((BASE_ENV as readonly string[]).includes(name) || name.startsWith("LC_")) env[name] = value;
    else if (opts.passEnv?.includes(name)) env[name] = value;
  }
  Object.assign(env, opts.env ?? {});
  if (opts.secret && opts.secretEnv) env[opts.secretEnv] = opts.secret;
  for (const name of NEVER_ENV) delete env[name];
  return env;
}

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
  /** Variables of the server's environment the CLI also gets (a preset's `pass_env`), beyond BASE_ENV. */
  passEnv?: readonly string[];
}

/** The client of a preset, or of a custom command. */
export function agentCliOptions(
  preset: PresetName | "custom",
  custom: { command?: string[]; promptVia?: PromptVia },
): Pick<AgentCliOptions, "command" | "promptVia" | "secretEnv" | "passEnv"> {
  if (preset === "custom") {
    if (!custom.command?.length) throw new Error("a custom agent CLI needs a command");
    return { command: custom.command, promptVia: custom.promptVia ?? "stdin", secretEnv: CUSTOM_SECRET_ENV };
  }
  const p = AGENT_PRESETS[preset];
  return {
    command: p.command,
    promptVia: custom.promptVia ?? p.prompt_via,
    secretEnv: p.secret_env,
    passEnv: p.pass_env,
  };
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
    const env = agentEnv(process.env, this.opts);
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    if (signal?.aborted)
      return Promise.reject(new ModelCallError("the agent CLI call was aborted", "timeout"));
    return execa(program, args, {
      cwd,
      env,
      extendEnv: false,
      input: stdin ?? "",
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      ...(signal ? { cancelSignal: signal } : {}),
      maxBuffer: MAX_OUTPUT_BYTES,
      stripFinalNewline: false,
      reject: false,
      windowsHide: true,
    }).then((result) => {
      const stderr = typeof result.stderr === "string" ? result.stderr : "";
      if (result.timedOut)
        throw new ModelCallError(`the agent CLI ${program} did not answer within ${timeoutMs} ms`, "timeout");
      if (result.isCanceled) throw new ModelCallError("the agent CLI call was aborted", "timeout");
      const code = (result as { code?: string }).code;
      if (code === "ENOENT")
        throw new ModelCallError(`the agent CLI ${program} is not installed (not on PATH)`, "bad_request");
      if (result.isMaxBuffer)
        throw new ModelCallError(
          `the agent CLI ${program} printed more than ${MAX_OUTPUT_BYTES} bytes; it was stopped`,
          "exit",
        );
      if (result.failed && result.exitCode === undefined && result.signal === undefined)
        throw new ModelCallError(
          `the agent CLI ${program} could not start: ${(result as { shortMessage?: string }).shortMessage ?? code ?? "unknown error"}`,
          "exit",
        );
      if (result.exitCode !== 0)
        throw new ModelCallError(
          `the agent CLI ${program} exited with ${result.exitCode ?? result.signal}${stderr.trim() ? `: ${tail(stderr)}` : ""}`,
          "exit",
        );
      return typeof result.stdout === "string" ? result.stdout : "";
    });
  }
}
