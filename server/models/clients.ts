/** From a configured backend to the ModelClient that calls it. */
import type { ModelClient } from "../../core/review/model.js";
import { AgentCliClient, agentCliOptions, isPresetName, type PromptVia } from "./agent-cli.js";
import { OpenAICompatibleClient } from "./openai-client.js";
import { PROVIDERS, isProviderKind } from "./providers.js";

/** A backend as the factory needs it (the database row, without the sealed secret). */
export interface BackendConfig {
  kind: string;
  baseUrl?: string | null;
  preset?: string | null;
  command?: string[] | null;
  promptVia?: string | null;
}

export interface ClientOptions {
  /** Per call, in ms. */
  timeoutMs?: number;
}

/**
 * The client of a backend. `secret` is the decrypted API key (providers) or the value handed
 * to the CLI in its preset's environment variable (agent CLIs); undefined when none is stored.
 */
export function modelClientFor(
  backend: BackendConfig,
  secret: string | undefined,
  opts: ClientOptions = {},
): ModelClient {
  if (isProviderKind(backend.kind))
    return new OpenAICompatibleClient({
      baseUrl: backend.baseUrl || PROVIDERS[backend.kind].baseUrl,
      apiKey: secret,
      timeoutMs: opts.timeoutMs,
    });
  if (backend.kind === "agent_cli") {
    const preset = backend.preset ?? "custom";
    if (preset !== "custom" && !isPresetName(preset)) throw new Error(`unknown agent CLI preset ${preset}`);
    const cli = agentCliOptions(preset, {
      command: backend.command ?? undefined,
      promptVia: (backend.promptVia ?? undefined) as PromptVia | undefined,
    });
    return new AgentCliClient({ ...cli, secret, timeoutMs: opts.timeoutMs });
  }
  throw new Error(`unknown backend kind ${backend.kind}`);
}
