/**
 * Administration (contract 2.11-2.15, 4.2 and 8): workspace settings, invite and
 * reset links, model backends and presets, role assignments, MCP connections,
 * the repohost token and the token budget. Secrets are write-only: only
 * `has_secret` and the last 4 characters come back.
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";
import { int64 } from "./params.js";
import { SETTING_FIELDS } from "../settings.js";

// ---- settings (section 8) ----

function intSetting(f: { min: number; max: number; default: number; meaning: string }) {
  return z.int().min(f.min).max(f.max).openapi({ default: f.default, description: f.meaning });
}

const F = SETTING_FIELDS;

/** Built from SETTING_FIELDS (server/settings.ts), the one source of bounds and defaults. Unknown fields are refused. */
export const SettingsSchema = z
  .strictObject({
    max_file_mb: intSetting(F.max_file_mb),
    max_bundle_mb: intSetting(F.max_bundle_mb),
    invite_ttl_days: intSetting(F.invite_ttl_days),
    resolve_sources: z
      .boolean()
      .optional()
      .openapi({ default: F.resolve_sources.default, description: F.resolve_sources.meaning }),
    parallel_calls: intSetting(F.parallel_calls),
    github_association_role: z.enum(F.github_association_role.values).optional().openapi({
      default: F.github_association_role.default,
      description: F.github_association_role.meaning,
    }),
  })
  .openapi("Settings", {
    description:
      "request and response share this shape; on PUT, `resolve_sources` and `github_association_role` left out take their defaults",
  });

// ---- invites and reset links ----

export const InviteSchema = z
  .looseObject({
    id: Uuid,
    role: z.string(),
    state: z.enum(["unused", "used", "revoked", "expired"]),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    used_by: z.string().optional(),
    used_at: z.iso.datetime().optional(),
  })
  .openapi("Invite", { description: "the URL is never listed; it appears one time, when made" });

export const NewInviteBodySchema = z
  .object({ role: z.string().min(1).openapi({ description: "the role the invited person gets" }) })
  .openapi("NewInvite");

export const InviteCreatedSchema = InviteSchema.extend({
  url: z.string().openapi({ description: "the single-use link; returned this one time only" }),
}).openapi("InviteCreated");

export const NewResetLinkBodySchema = z.object({ user_id: z.string().min(1) }).openapi("NewResetLink");

export const ResetLinkSchema = z
  .looseObject({
    user_id: z.string(),
    url: z.string().openapi({ description: "the one-time link; returned this one time only" }),
    expires_at: z.iso.datetime(),
  })
  .openapi("ResetLink");

// ---- people's GitHub logins (docs/accounts.md, "GitHub login"; a product extension) ----

export const GitHubLoginBodySchema = z
  .strictObject({
    github_login: z.string().min(1).max(40).nullable().openapi({
      description: "the GitHub login (stored lower-cased; a leading `@` is dropped); null clears it",
    }),
  })
  .openapi("GitHubLoginRequest");

export const AccountSchema = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    role: z.string(),
    github_login: z
      .string()
      .nullable()
      .openapi({ description: "the linked GitHub login, lower-cased; null when none is linked" }),
  })
  .openapi("Account");

// ---- model backends, presets, roles (2.11, 2.12) ----

export const BackendKind = z.enum(["provider_1", "provider_2", "provider_3", "provider_4", "agent_cli"]);
export const AgentPreset = z.enum([
  "agent_preset_1",
  "agent_preset_2",
  "agent_preset_3",
  "agent_preset_4",
  "custom",
]);
export const PromptVia = z.enum(["stdin", "file"]);

export const BackendSchema = z
  .object({
    id: Uuid,
    kind: BackendKind,
    name: z.string(),
    has_secret: z.boolean(),
    secret_last4: z
      .string()
      .openapi({ description: "only the last 4 characters of the secret are ever returned" }),
    base_url: z.string().optional().openapi({ description: "overrides the provider's API address" }),
    preset: AgentPreset.optional().openapi({ description: "for `agent_cli`" }),
    command: z.array(z.string()).optional().openapi({
      description: "for a custom agent CLI; `{model}`, `{schema}`, `{prompt_file}` are replaced",
    }),
    prompt_via: PromptVia.optional(),
    roles: z.array(z.string()).openapi({ description: "roles that use this backend" }),
  })
  .openapi("Backend");

export const BackendBodySchema = z
  .strictObject({
    kind: BackendKind,
    name: z.string().min(1),
    secret: z.string().optional().openapi({
      description:
        "the API key (for `agent_cli`: handed to the CLI in its environment); write-only; on PUT, leave it out to keep the stored one, send an empty string to remove it",
    }),
    base_url: z
      .string()
      .optional()
      .openapi({ description: "providers only: an http(s) address overriding the provider's API address" }),
    preset: AgentPreset.optional().openapi({ description: "`agent_cli` only (required there)" }),
    command: z
      .array(z.string().min(1))
      .optional()
      .openapi({ description: "`agent_cli` with preset `custom` only (required there)" }),
    prompt_via: PromptVia.optional().openapi({
      description: "`agent_cli` only; default: the preset's, `stdin` for `custom`",
    }),
  })
  .openapi("BackendRequest");

export const BackendTestBodySchema = z
  .strictObject({ model: z.string().min(1) })
  .openapi("BackendTestRequest");

export const BackendTestResultSchema = z
  .object({
    ok: z.boolean(),
    answer: z.string().optional(),
    error: z.string().optional(),
    tokens_in: int64().optional(),
    tokens_out: int64().optional(),
    estimated: z.boolean().optional().openapi({ description: "token counts are estimates" }),
    duration_ms: int64(),
  })
  .openapi("BackendTestResult");

export const PresetSchema = z
  .looseObject({
    preset: AgentPreset.exclude(["custom"]),
    name: z.string(),
    command: z.array(z.string()),
    prompt_via: PromptVia,
    installed: z.boolean().openapi({ description: "the CLI is on this machine's PATH" }),
    secret_env: z
      .string()
      .optional()
      .openapi({ description: "the environment variable a backend's secret is handed to the CLI in" }),
    version: z.string().optional().openapi({ description: "the installed CLI's version, when it says" }),
  })
  .openapi("AgentPresetInfo");

export const RoleAssignmentSchema = z
  .object({
    role: z.string().openapi({ example: "reviewer" }),
    backend_id: Uuid.optional(),
    model: z.string().optional(),
    price_in_per_mtok: z
      .number()
      .optional()
      .openapi({ description: "price per million input tokens, for cost estimates" }),
    price_out_per_mtok: z.number().optional(),
  })
  .openapi("RoleAssignment");

export const RoleAssignmentBodySchema = z
  .strictObject({
    backend_id: Uuid,
    model: z.string().min(1),
    price_in_per_mtok: z.number().min(0).optional(),
    price_out_per_mtok: z.number().min(0).optional(),
  })
  .openapi("RoleAssignmentRequest");

// ---- MCP (2.13) ----

export const McpTransport = z.enum(["stdio", "http"]).openapi({
  description: "`stdio`: `command` runs as a subprocess; `http`: streamable HTTP at `url`",
});

export const McpConnectionSchema = z
  .object({
    id: Uuid,
    name: z.string(),
    transport: McpTransport,
    command: z.array(z.string()).optional().openapi({ description: "stdio: the program and its arguments" }),
    url: z.string().optional().openapi({ description: "http: the server's streamable HTTP address" }),
    secret_env: z
      .string()
      .optional()
      .openapi({ description: "stdio: the environment variable the secret is handed in as" }),
    has_secret: z.boolean(),
    secret_last4: z.string().openapi({
      description: "only the last 4 characters of a secret of 8 or more; the secret is never returned",
    }),
    tool_allowlist: z.array(z.string()).openapi({
      description: "the only tools the service calls; a destructive tool is refused even when listed",
    }),
    is_search: z
      .boolean()
      .openapi({ description: "grounding: the claims stage searches each claim with `search_tool`" }),
    search_tool: z.string().openapi({ description: "the search tool; empty when not a search connection" }),
    hosts: z.array(z.string()).openapi({
      description:
        "hosts (`docs.example.com`, `*.example.com`) whose external targets are read with `fetch_tool`",
    }),
    fetch_tool: z.string().openapi({ description: "the tool that reads a target; empty without hosts" }),
  })
  .openapi("McpConnection");

const ToolName = z.string().min(1).max(200);

export const McpConnectionBodySchema = z
  .strictObject({
    name: z.string().min(1).max(200),
    transport: McpTransport,
    command: z.array(z.string().min(1)).min(1).optional().openapi({
      description: "stdio only (required there): the program and its arguments, run without a shell",
    }),
    url: z.string().optional().openapi({ description: "http only (required there): an http(s) address" }),
    secret_env: z.string().optional().openapi({
      description:
        "stdio only, required with a secret: the environment variable the server gets the secret in",
    }),
    secret: z.string().optional().openapi({
      description:
        "write-only; stdio: handed in `secret_env`, http: sent as `Authorization: Bearer`; on PUT, leave it out to keep the stored one, send an empty string to remove it",
    }),
    tool_allowlist: z.array(ToolName).max(200).optional().openapi({ description: "default: none" }),
    is_search: z.boolean().optional(),
    search_tool: ToolName.optional().openapi({ description: "with `is_search`; must be on the allowlist" }),
    hosts: z.array(z.string().min(1).max(253)).max(200).optional(),
    fetch_tool: ToolName.optional().openapi({ description: "with `hosts`; must be on the allowlist" }),
  })
  .openapi("McpConnectionRequest");

export const McpToolSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    read_only: z.boolean().openapi({ description: "the server annotates it `readOnlyHint`" }),
    destructive: z
      .boolean()
      .openapi({ description: "the server annotates it `destructiveHint`; the service never calls it" }),
  })
  .openapi("McpTool");

// ---- repohost token (2.15) ----

export const RepohostConnectionSchema = z
  .object({
    configured: z.boolean(),
    token_last4: z.string().optional(),
    api_url: z.string(),
    login: z
      .string()
      .optional()
      .openapi({ description: "the repohost account of the token, from the last check" }),
  })
  .openapi("RepohostConnection", { description: "the token itself is never returned" });

export const RepohostTokenBodySchema = z
  .object({
    token: z.string().min(1).openapi({ description: "fine-grained personal access token; write-only" }),
    api_url: z.string().optional().openapi({
      description:
        "the repohost API address; default the provider's public one; a self-hosted server uses `https://<host>/api/v3`",
    }),
  })
  .openapi("RepohostTokenRequest");

// ---- budget (section 8) ----

export const BudgetSchema = z
  .object({
    month: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .openapi({ example: "2026-11", description: "this calendar month, UTC" }),
    limit_tokens: int64().nullable().openapi({ description: "null: no limit, so no budget" }),
    used_tokens_in: int64().openapi({ description: "input tokens used this month" }),
    used_tokens_out: int64().openapi({ description: "output tokens used this month" }),
    used_tokens: int64().openapi({ description: "input plus output tokens used this month" }),
    remaining_tokens: int64()
      .nullable()
      .openapi({ description: "limit minus use, never below 0; null when there is no limit" }),
  })
  .openapi("Budget");

export const BudgetBodySchema = z
  .strictObject({
    limit_tokens: int64()
      .min(1)
      .nullable()
      .openapi({ description: "monthly token limit (input plus output tokens); null removes the budget" }),
  })
  .openapi("BudgetRequest");
