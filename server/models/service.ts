/**
 * Model backends and role assignments kept in the database (contract 2.11, 2.12), with
 * secrets sealed by a SecretBox. Implements ModelRoles for the review pipeline: a role
 * resolves to its backend, the secret is opened, and a client is made for the call.
 * Secrets are never logged and never leave except to the model server or CLI they are for.
 */
import { randomUUID } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { ModelCallError, type ModelClient } from "../../core/review/model.js";
import { DEFAULT_RETRY } from "../../core/review/steps.js";
import type { Db } from "../db/index.js";
import { modelBackends, roleAssignments } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, NotFoundError, ValidationError, type FieldIssue } from "../errors.js";
import { AGENT_PRESETS, isPresetName, onPath, type PresetName } from "./agent-cli.js";
import { modelClientFor, type BackendConfig, type ClientOptions } from "./clients.js";
import { isProviderKind } from "./providers.js";
import { secretColumns, type SecretBox } from "./secrets.js";
import type { Budget, ModelRoles, RoleModel, RoleName } from "./types.js";
import { redact, registerSecret } from "../redact.js";

export const ROLE_NAMES: readonly RoleName[] = ["reviewer", "reader", "judge"];

export function isRoleName(value: string): value is RoleName {
  return (ROLE_NAMES as readonly string[]).includes(value);
}

export type BackendKindName = "provider_1" | "provider_2" | "provider_3" | "provider_4" | "agent_cli";

export interface BackendInput {
  kind: BackendKindName;
  name: string;
  secret?: string;
  base_url?: string;
  preset?: PresetName | "custom";
  command?: string[];
  prompt_via?: "stdin" | "file";
}

export interface BackendView {
  id: string;
  kind: BackendKindName;
  name: string;
  has_secret: boolean;
  secret_last4: string;
  base_url?: string;
  preset?: PresetName | "custom";
  command?: string[];
  prompt_via?: "stdin" | "file";
  roles: string[];
}

export interface RoleView {
  role: string;
  backend_id?: string;
  model?: string;
  price_in_per_mtok?: number;
  price_out_per_mtok?: number;
}

export interface RoleInput {
  backend_id: string;
  model: string;
  price_in_per_mtok?: number;
  price_out_per_mtok?: number;
}

export interface PresetView {
  preset: PresetName;
  name: string;
  command: string[];
  prompt_via: "stdin" | "file";
  installed: boolean;
  secret_env: string;
}

export interface BackendTestResult {
  ok: boolean;
  answer?: string;
  error?: string;
  tokens_in?: number;
  tokens_out?: number;
  estimated?: boolean;
  duration_ms: number;
}

export type ClientFactory = (
  backend: BackendConfig,
  secret: string | undefined,
  opts: ClientOptions,
) => ModelClient;

export interface ModelServiceOptions {
  db: Db;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Test calls count against it. */
  budget?: Budget;
  clientFor?: ClientFactory;
  /** Per model call of the pipeline, in ms (default: the client's, 120 s). */
  callTimeoutMs?: number;
  /** Per backend test call, in ms (default 60 s). */
  testTimeoutMs?: number;
}

type BackendRow = typeof modelBackends.$inferSelect;

/**
 * The per-call timeout of review steps from SPEC_REVIEW_MODEL_TIMEOUT_S (seconds, 1 to 3600),
 * for local models that take minutes on a long prompt; undefined when unset (the client's
 * 120 s). A value that is not such a number stops the start with this message.
 */
export function modelCallTimeoutMs(
  env: Record<string, string | undefined> = process.env,
): number | undefined {
  const raw = env.SPEC_REVIEW_MODEL_TIMEOUT_S;
  if (raw === undefined || raw.trim() === "") return undefined;
  const s = Number(raw);
  if (!Number.isFinite(s) || s < 1 || s > 3600)
    throw new Error(
      `SPEC_REVIEW_MODEL_TIMEOUT_S must be a number of seconds from 1 to 3600, not ${JSON.stringify(raw)}`,
    );
  return Math.round(s * 1000);
}

/** The step runner's limit for a client call timeout: a minute past it, never under the default. */
export function reviewRetryFor(callTimeoutMs: number | undefined): { timeoutMs: number } | undefined {
  return callTimeoutMs === undefined
    ? undefined
    : { timeoutMs: Math.max(DEFAULT_RETRY.timeoutMs, callTimeoutMs + 60_000) };
}

/** The small structured call `POST /admin/backends/{id}/test` sends. */
export const TEST_CALL = {
  stage: "backend_test",
  system: "You are checking that a model connection works. Answer in JSON.",
  prompt: 'Reply with a JSON object whose "answer" is the word "ok".',
  schemaName: "backend_test",
  schema: {
    type: "object",
    properties: { answer: { type: "string" } },
    required: ["answer"],
    additionalProperties: false,
  },
} as const;

function isFkViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23503") return true;
    if (e === (e as { cause?: unknown }).cause) break;
  }
  return false;
}

/** Field problems of a backend body (what the schema alone cannot say). */
export function backendIssues(input: BackendInput): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const only = (field: keyof BackendInput, why: string) => {
    if (input[field] !== undefined) issues.push({ field: `body.${field}`, message: why });
  };
  if (!input.name.trim()) issues.push({ field: "body.name", message: "must not be blank" });
  if (isProviderKind(input.kind)) {
    only("preset", "only for kind agent_cli");
    only("command", "only for kind agent_cli");
    only("prompt_via", "only for kind agent_cli");
    if (input.base_url !== undefined) {
      let ok: boolean;
      try {
        ok = ["http:", "https:"].includes(new URL(input.base_url).protocol);
      } catch {
        ok = false;
      }
      if (!ok) issues.push({ field: "body.base_url", message: "must be an http:// or https:// address" });
    }
    return issues;
  }
  only("base_url", "only for the provider kinds");
  if (input.preset === undefined) {
    issues.push({
      field: "body.preset",
      message: "required for kind agent_cli: agent_preset_1..agent_preset_4 or custom",
    });
    return issues;
  }
  if (input.preset === "custom") {
    if (!input.command?.length) issues.push({ field: "body.command", message: "required for preset custom" });
    else if (input.prompt_via === "file" && !input.command.some((a) => a.includes("{prompt_file}")))
      issues.push({ field: "body.command", message: "must contain {prompt_file} when prompt_via is file" });
  } else {
    only("command", "only for preset custom; a preset runs its own command");
    const wanted = AGENT_PRESETS[input.preset].prompt_via;
    if (input.prompt_via !== undefined && input.prompt_via !== wanted)
      issues.push({ field: "body.prompt_via", message: `${input.preset} takes the prompt by ${wanted}` });
  }
  return issues;
}

export class ModelService implements ModelRoles {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #budget: Budget | undefined;
  readonly #clientFor: ClientFactory;
  readonly #callTimeoutMs: number | undefined;
  readonly #testTimeoutMs: number;

  constructor(opts: ModelServiceOptions) {
    this.#db = opts.db;
    this.#box = opts.box;
    this.#clock = opts.clock;
    this.#logger = opts.logger;
    this.#budget = opts.budget;
    this.#clientFor = opts.clientFor ?? modelClientFor;
    this.#callTimeoutMs = opts.callTimeoutMs;
    this.#testTimeoutMs = opts.testTimeoutMs ?? 60_000;
  }

  // ---- backends ----

  #view(row: BackendRow, roles: string[]): BackendView {
    const view: BackendView = {
      id: row.id,
      kind: row.kind as BackendKindName,
      name: row.name,
      has_secret: row.secretCipher !== null,
      secret_last4: row.secretLast4,
      roles: [...roles].sort(),
    };
    if (row.baseUrl !== null) view.base_url = row.baseUrl;
    if (row.preset !== null) view.preset = row.preset as PresetName | "custom";
    if (row.command !== null) view.command = row.command;
    if (row.promptVia !== null) view.prompt_via = row.promptVia as "stdin" | "file";
    return view;
  }

  async #rolesByBackend(): Promise<Map<string, string[]>> {
    const rows = await this.#db.select().from(roleAssignments);
    const map = new Map<string, string[]>();
    for (const r of rows) map.set(r.backendId, [...(map.get(r.backendId) ?? []), r.role]);
    return map;
  }

  async #row(id: string): Promise<BackendRow> {
    const [row] = await this.#db.select().from(modelBackends).where(eq(modelBackends.id, id));
    if (!row) throw new NotFoundError("backend", id);
    return row;
  }

  async listBackends(): Promise<BackendView[]> {
    const rows = await this.#db
      .select()
      .from(modelBackends)
      .orderBy(asc(modelBackends.createdAt), asc(modelBackends.id));
    const roles = await this.#rolesByBackend();
    return rows.map((r) => this.#view(r, roles.get(r.id) ?? []));
  }

  async getBackend(id: string): Promise<BackendView> {
    const row = await this.#row(id);
    return this.#view(row, (await this.#rolesByBackend()).get(id) ?? []);
  }

  /** The row's columns for a body, the secret sealed (`undefined` secret: keep, `""`: remove). */
  #columns(id: string, input: BackendInput) {
    const issues = backendIssues(input);
    if (issues.length)
      throw new ValidationError(issues.map((i) => `${i.field}: ${i.message}`).join("; "), issues);
    const agent = input.kind === "agent_cli";
    const columns = {
      kind: input.kind,
      name: input.name.trim(),
      baseUrl: agent ? null : (input.base_url ?? null),
      preset: agent ? (input.preset ?? null) : null,
      command: agent && input.preset === "custom" ? (input.command ?? null) : null,
      promptVia: agent
        ? (input.prompt_via ??
          (input.preset && isPresetName(input.preset) ? AGENT_PRESETS[input.preset].prompt_via : "stdin"))
        : null,
    };
    return { columns, secret: secretColumns(this.#box, input.secret, id) };
  }

  async createBackend(input: BackendInput): Promise<BackendView> {
    const id = randomUUID();
    const { columns, secret } = this.#columns(id, input);
    const now = this.#clock.now();
    const [row] = await this.#db
      .insert(modelBackends)
      .values({
        id,
        ...columns,
        secretCipher: null,
        secretLast4: "",
        ...secret,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    this.#logger.info("model backend added", {
      backend_id: id,
      kind: input.kind,
      has_secret: row!.secretCipher !== null,
    });
    return this.#view(row!, []);
  }

  async updateBackend(id: string, input: BackendInput): Promise<BackendView> {
    await this.#row(id);
    const { columns, secret } = this.#columns(id, input);
    const [row] = await this.#db
      .update(modelBackends)
      .set({ ...columns, ...secret, updatedAt: this.#clock.now() })
      .where(eq(modelBackends.id, id))
      .returning();
    if (!row) throw new NotFoundError("backend", id);
    this.#logger.info("model backend changed", {
      backend_id: id,
      kind: input.kind,
      secret: secret === undefined ? "kept" : secret.secretCipher === null ? "removed" : "replaced",
    });
    return this.#view(row, (await this.#rolesByBackend()).get(id) ?? []);
  }

  /** Contract rule 7.4: only a backend no role uses. */
  async deleteBackend(id: string): Promise<void> {
    await this.#row(id);
    const roles = [...((await this.#rolesByBackend()).get(id) ?? [])].sort();
    const inUse = () =>
      new ApiError(
        "backend_in_use",
        `roles ${roles.join(", ")} use this backend; assign them another one first`,
        {
          roles,
        },
      );
    if (roles.length) throw inUse();
    try {
      await this.#db.delete(modelBackends).where(eq(modelBackends.id, id));
    } catch (err) {
      if (isFkViolation(err)) {
        roles.push(...((await this.#rolesByBackend()).get(id) ?? []));
        throw inUse();
      }
      throw err;
    }
    this.#logger.info("model backend deleted", { backend_id: id });
  }

  /**
   * The review's own limit on one call (the step runner's): past the client's timeout, so a
   * configured SPEC_REVIEW_MODEL_TIMEOUT_S over the default is not cut short by it.
   */
  reviewRetry(): { timeoutMs: number } | undefined {
    return reviewRetryFor(this.#callTimeoutMs);
  }

  #secretOf(row: BackendRow): string | undefined {
    if (row.secretCipher === null) return undefined;
    try {
      const secret = this.#box.open(row.secretCipher, row.id);
      registerSecret(secret);
      return secret;
    } catch (err) {
      throw new Error(
        `the secret of backend ${row.id} cannot be decrypted with this server's key (was SPEC_REVIEW_SECRET_KEY or secret.key changed?); set the secret again`,
        { cause: err },
      );
    }
  }

  #client(row: BackendRow, secret: string | undefined, timeoutMs: number | undefined): ModelClient {
    return redactingClient(this.#clientFor(row, secret, { timeoutMs }));
  }

  /** One short structured call; a failing backend is `ok: false` with the reason. */
  async testBackend(id: string, model: string): Promise<BackendTestResult> {
    const row = await this.#row(id);
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    let secret: string | undefined;
    try {
      secret = this.#secretOf(row);
      const client = this.#client(row, secret, this.#testTimeoutMs);
      const answer = await client.call({
        ...TEST_CALL,
        model,
        signal: AbortSignal.timeout(this.#testTimeoutMs),
      });
      await this.#budget?.record(this.#clock.now(), answer.tokensIn, answer.tokensOut);
      const counts = {
        tokens_in: answer.tokensIn,
        tokens_out: answer.tokensOut,
        estimated: answer.estimated,
      };
      let parsed: unknown;
      try {
        parsed = JSON.parse(answer.text);
      } catch {
        return {
          ok: false,
          error: `the answer is not JSON: ${redact(answer.text.slice(0, 200), [secret])}`,
          ...counts,
          duration_ms: ms(),
        };
      }
      const value = (parsed as { answer?: unknown } | null)?.answer;
      if (typeof value !== "string")
        return {
          ok: false,
          error: `the answer does not match the schema (an object with a string "answer"): ${redact(answer.text.slice(0, 200), [secret])}`,
          ...counts,
          duration_ms: ms(),
        };
      return { ok: true, answer: redact(value, [secret]), ...counts, duration_ms: ms() };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, error: redact(message, [secret]), duration_ms: ms() };
    }
  }

  // ---- roles ----

  async listRoles(): Promise<RoleView[]> {
    const rows = await this.#db.select().from(roleAssignments);
    const byRole = new Map(rows.map((r) => [r.role, r]));
    return ROLE_NAMES.map((role) => {
      const r = byRole.get(role);
      return r ? roleView(r) : { role };
    });
  }

  async assignRole(role: RoleName, input: RoleInput): Promise<RoleView> {
    const unknown = () =>
      new ApiError(
        "unknown_backend",
        `no backend ${input.backend_id}; add it with POST /admin/backends first`,
        {
          errors: [{ field: "body.backend_id", message: "no such backend" }],
        },
      );
    const [backend] = await this.#db
      .select()
      .from(modelBackends)
      .where(eq(modelBackends.id, input.backend_id));
    if (!backend) throw unknown();
    const values = {
      role,
      backendId: input.backend_id,
      model: input.model,
      priceInPerMtok: input.price_in_per_mtok ?? null,
      priceOutPerMtok: input.price_out_per_mtok ?? null,
      updatedAt: this.#clock.now(),
    };
    try {
      const [row] = await this.#db
        .insert(roleAssignments)
        .values(values)
        .onConflictDoUpdate({ target: roleAssignments.role, set: values })
        .returning();
      this.#logger.info("role assigned", { role, backend_id: input.backend_id, model: input.model });
      return roleView(row!);
    } catch (err) {
      if (isFkViolation(err)) throw unknown();
      throw err;
    }
  }

  async unassignRole(role: RoleName): Promise<void> {
    await this.#db.delete(roleAssignments).where(eq(roleAssignments.role, role));
  }

  /** ModelRoles: the role's backend and model, with a client holding the opened secret. */
  async forRole(role: RoleName): Promise<RoleModel | undefined> {
    const [found] = await this.#db
      .select({ role: roleAssignments, backend: modelBackends })
      .from(roleAssignments)
      .innerJoin(modelBackends, eq(roleAssignments.backendId, modelBackends.id))
      .where(eq(roleAssignments.role, role));
    if (!found) return undefined;
    const { role: r, backend } = found;
    const out: RoleModel = {
      role,
      client: this.#client(backend, this.#secretOf(backend), this.#callTimeoutMs),
      model: r.model,
      backendId: backend.id,
    };
    if (r.priceInPerMtok !== null) out.priceInPerMTok = r.priceInPerMtok;
    if (r.priceOutPerMtok !== null) out.priceOutPerMTok = r.priceOutPerMtok;
    return out;
  }
}

/**
 * A client whose failures carry no secret: a provider that echoes the Authorization header,
 * or a CLI that prints its key, has it masked (server/redact.ts) before the message goes
 * anywhere (run errors, events, answers, logs). The SDK error it wrapped is dropped.
 */
export function redactingClient(client: ModelClient): ModelClient {
  return {
    async call(call) {
      try {
        return await client.call(call);
      } catch (err) {
        if (err instanceof ModelCallError)
          throw new ModelCallError(redact(err.message), err.kind, err.retryAfterMs);
        // The cause is dropped on purpose: an SDK error keeps the request, key included.
        // eslint-disable-next-line preserve-caught-error
        throw new Error(redact(err instanceof Error ? err.message : String(err)));
      }
    },
  };
}

/** The agent CLI presets, and whether each program is on this machine's PATH. */
export function presetViews(): PresetView[] {
  return Object.values(AGENT_PRESETS).map((p) => ({
    preset: p.preset,
    name: p.name,
    command: p.command,
    prompt_via: p.prompt_via,
    installed: onPath(p.command[0]!),
    secret_env: p.secret_env,
  }));
}

function roleView(r: typeof roleAssignments.$inferSelect): RoleView {
  const view: RoleView = { role: r.role, backend_id: r.backendId, model: r.model };
  if (r.priceInPerMtok !== null) view.price_in_per_mtok = r.priceInPerMtok;
  if (r.priceOutPerMtok !== null) view.price_out_per_mtok = r.priceOutPerMtok;
  return view;
}
