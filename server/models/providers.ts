/**
 * The four hosted providers behind `provider_1`..`provider_4` (contract 2.11): each is
 * reached through its OpenAI-compatible chat completions API with the `openai` SDK.
 * `base_url` on a backend overrides the address, so any OpenAI-compatible server works
 * (a local Ollama, llama.cpp or vLLM). docs/models.md says the same.
 */
export type ProviderKind = "provider_1" | "provider_2" | "provider_3" | "provider_4";

export interface ProviderInfo {
  kind: ProviderKind;
  /** Who the value stands for. */
  name: string;
  /** The default API address (the SDK's `baseURL`). */
  baseUrl: string;
}

export const PROVIDERS: Record<ProviderKind, ProviderInfo> = {
  provider_1: { kind: "provider_1", name: "OpenAI", baseUrl: "https://api.openai.com/v1" },
  provider_2: { kind: "provider_2", name: "Anthropic", baseUrl: "https://api.anthropic.com/v1/" },
  provider_3: {
    kind: "provider_3",
    name: "Google Gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai/",
  },
  provider_4: { kind: "provider_4", name: "Mistral AI", baseUrl: "https://api.mistral.ai/v1" },
};

export function isProviderKind(kind: string): kind is ProviderKind {
  return kind in PROVIDERS;
}
