/**
 * Administration of models over HTTP (contract 2.11, 2.12, 4.2, 5, 7 rule 4, 8): backends
 * with write-only sealed secrets, the test call against a real local OpenAI-compatible
 * server and the fake agent CLI, presets, roles, settings bounds and the token budget.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import type { z } from "@hono/zod-openapi";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import type { Items } from "../helpers/types.js";
import { modelBackends, roleAssignments, settings as settingsTable } from "../../server/db/schema.js";
import type {
  BackendSchema,
  BackendTestResultSchema,
  BudgetSchema,
  PresetSchema,
  RoleAssignmentSchema,
  SettingsSchema,
} from "../../server/schemas/admin.js";
import { SETTING_DEFAULTS, SETTING_FIELDS, readSettings } from "../../server/settings.js";
import { loadSecretKey, SECRET_KEY_ENV, SecretBox } from "../../server/models/secrets.js";
import type { Clock } from "../../server/deps.js";
import { ModelService } from "../../server/models/service.js";

type Backend = z.infer<typeof BackendSchema>;
type TestResult = z.infer<typeof BackendTestResultSchema>;
type Budget = z.infer<typeof BudgetSchema>;
type Preset = z.infer<typeof PresetSchema>;
type Role = z.infer<typeof RoleAssignmentSchema>;
type Settings = z.infer<typeof SettingsSchema>;

const AGENT = resolve(import.meta.dirname, "../../fixtures/fake-agent-cli/agent.mjs");
const SECRET = "sk-live-do-not-leak-7f3a9c";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

/** A clock the test moves. */
function movableClock(start: string): Clock & { set(iso: string): void } {
  let now = new Date(start);
  return { now: () => new Date(now), set: (iso) => (now = new Date(iso)) };
}

describe.each(DB_KINDS)("admin: backends, roles, settings and budget on %s", (kind) => {
  let t: TestApp;
  const clock = movableClock("2026-11-15T12:00:00Z");
  beforeEach(async () => {
    fake.reset();
    clock.set("2026-11-15T12:00:00Z");
    t = await makeTestApp({ kind, clock, modelTimeoutMs: 1_500 });
  });
  afterEach(async () => {
    await t.close();
  });

  const addProvider = async (extra: Record<string, unknown> = {}) => {
    const res = await t.req("POST", "/admin/backends", {
      kind: "provider_1",
      name: "Local fake",
      base_url: fake.baseUrl,
      secret: SECRET,
      ...extra,
    });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    expect(text).not.toContain(SECRET);
    return JSON.parse(text) as Backend;
  };

  const rawRows = () => t.database.db.select().from(modelBackends);

  describe("backends", () => {
    it("adds, lists, changes and deletes a backend; the secret is write-only", async () => {
      const b = await addProvider();
      expect(b).toMatchObject({
        kind: "provider_1",
        name: "Local fake",
        base_url: fake.baseUrl,
        has_secret: true,
        secret_last4: SECRET.slice(-4),
        roles: [],
      });
      expect(b).not.toHaveProperty("secret");

      const listText = await (await t.req("GET", "/admin/backends")).text();
      expect(listText).not.toContain(SECRET);
      expect((JSON.parse(listText) as Items<Backend>).items.map((x) => x.id)).toEqual([b.id]);

      // In the database: sealed, never the clear text (nor its base64).
      const [row] = await rawRows();
      expect(row!.secretCipher).toMatch(/^v1:/);
      expect(JSON.stringify(row)).not.toContain(SECRET);
      expect(JSON.stringify(row)).not.toContain(Buffer.from(SECRET).toString("base64"));

      // PUT without the secret keeps it.
      const renamed = await t.req("PUT", `/admin/backends/${b.id}`, {
        kind: "provider_1",
        name: "Renamed",
        base_url: fake.baseUrl,
      });
      const renamedText = await renamed.text();
      expect(renamed.status, renamedText).toBe(200);
      expect(renamedText).not.toContain(SECRET);
      expect(JSON.parse(renamedText)).toMatchObject({
        name: "Renamed",
        has_secret: true,
        secret_last4: SECRET.slice(-4),
      });
      expect((await rawRows())[0]!.secretCipher).toBe(row!.secretCipher);

      // A new secret replaces it; an empty string removes it.
      const replaced = await json<Backend>(
        t.req("PUT", `/admin/backends/${b.id}`, {
          kind: "provider_1",
          name: "Renamed",
          secret: "another-key-WXYZ",
        }),
      );
      expect(replaced).toMatchObject({ has_secret: true, secret_last4: "WXYZ" });
      expect(replaced).not.toHaveProperty("base_url");
      const cleared = await json<Backend>(
        t.req("PUT", `/admin/backends/${b.id}`, { kind: "provider_1", name: "Renamed", secret: "" }),
      );
      expect(cleared).toMatchObject({ has_secret: false, secret_last4: "" });
      expect((await rawRows())[0]!.secretCipher).toBeNull();

      const del = await t.req("DELETE", `/admin/backends/${b.id}`);
      expect(del.status).toBe(204);
      expect((await json<Items<Backend>>(t.req("GET", "/admin/backends"))).items).toEqual([]);
      await problem(await t.req("DELETE", `/admin/backends/${b.id}`), 404, "not_found");
      await problem(
        await t.req("PUT", `/admin/backends/${b.id}`, { kind: "provider_1", name: "x" }),
        404,
        "not_found",
      );
    });

    it("shows no characters of a short secret", async () => {
      const b = await addProvider({ secret: "abc12" });
      expect(b).toMatchObject({ has_secret: true, secret_last4: "" });
    });

    it("adds agent CLI backends: a preset with its prompt_via, and a custom command", async () => {
      const preset = await json<Backend>(
        t.req("POST", "/admin/backends", { kind: "agent_cli", name: "Aider", preset: "agent_preset_4" }),
      );
      expect(preset).toMatchObject({
        kind: "agent_cli",
        preset: "agent_preset_4",
        prompt_via: "file",
        has_secret: false,
      });
      expect(preset).not.toHaveProperty("command");
      const custom = await json<Backend>(
        t.req("POST", "/admin/backends", {
          kind: "agent_cli",
          name: "Fake",
          preset: "custom",
          command: ["node", AGENT, "--prompt-file", "{prompt_file}"],
          prompt_via: "file",
        }),
      );
      expect(custom).toMatchObject({
        preset: "custom",
        prompt_via: "file",
        command: ["node", AGENT, "--prompt-file", "{prompt_file}"],
      });
      const defaulted = await json<Backend>(
        t.req("POST", "/admin/backends", {
          kind: "agent_cli",
          name: "Fake 2",
          preset: "custom",
          command: ["node", AGENT],
        }),
      );
      expect(defaulted.prompt_via).toBe("stdin");
    });

    it.each([
      [{ kind: "agent_cli", name: "x" }, "body.preset"],
      [{ kind: "agent_cli", name: "x", preset: "custom" }, "body.command"],
      [
        { kind: "agent_cli", name: "x", preset: "custom", command: ["cli"], prompt_via: "file" },
        "body.command",
      ],
      [{ kind: "agent_cli", name: "x", preset: "agent_preset_1", command: ["claude"] }, "body.command"],
      [{ kind: "agent_cli", name: "x", preset: "agent_preset_1", prompt_via: "file" }, "body.prompt_via"],
      [
        { kind: "agent_cli", name: "x", preset: "agent_preset_1", base_url: "http://127.0.0.1" },
        "body.base_url",
      ],
      [{ kind: "provider_2", name: "x", preset: "agent_preset_1" }, "body.preset"],
      [{ kind: "provider_2", name: "x", command: ["a"] }, "body.command"],
      [{ kind: "provider_2", name: "x", base_url: "ftp://example.com" }, "body.base_url"],
      [{ kind: "provider_2", name: "x", base_url: "not a url" }, "body.base_url"],
      [{ kind: "provider_2", name: "   " }, "body.name"],
      [{ kind: "provider_9", name: "x" }, "body.kind"],
      [{ kind: "provider_2" }, "body.name"],
    ])("refuses %j naming %s", async (body, field) => {
      const res = await problem(await t.req("POST", "/admin/backends", body), 400, "validation_failed");
      expect((res.errors as Array<{ field: string }>).map((e) => e.field)).toContain(field);
      expect(await rawRows()).toEqual([]);
    });

    it("refuses unknown fields", async () => {
      const res = await problem(
        await t.req("POST", "/admin/backends", { kind: "provider_1", name: "x", api_key: SECRET }),
        400,
        "validation_failed",
      );
      expect(String(res.detail)).toContain("api_key");
      expect(JSON.stringify(res)).not.toContain(SECRET);
    });
  });

  describe("test call", () => {
    it("sends one short structured call to the model and reports the answer and tokens", async () => {
      const b = await addProvider();
      fake.enqueue({ json: { answer: "ok" }, usage: { prompt_tokens: 31, completion_tokens: 4 } });
      const res = await json<TestResult>(
        t.req("POST", `/admin/backends/${b.id}/test`, { model: "llama3.2" }),
      );
      expect(res).toMatchObject({ ok: true, answer: "ok", tokens_in: 31, tokens_out: 4, estimated: false });
      expect(res.duration_ms).toBeGreaterThanOrEqual(0);
      expect(res).not.toHaveProperty("error");
      const req = fake.completions[0]!;
      expect(req.body.model).toBe("llama3.2");
      expect(req.body.messages.map((m) => m.role)).toEqual(["system", "user"]);
      expect(req.prompt).toContain('"answer"');
      expect(req.body.response_format).toEqual({
        type: "json_schema",
        json_schema: {
          name: "backend_test",
          strict: true,
          schema: {
            type: "object",
            properties: { answer: { type: "string" } },
            required: ["answer"],
            additionalProperties: false,
          },
        },
      });
      // The stored secret was opened and sent, and only to the model server.
      expect(req.headers.authorization).toBe(`Bearer ${SECRET}`);
      // A test call counts against the month's use.
      expect(await json<Budget>(t.req("GET", "/admin/budget"))).toMatchObject({
        used_tokens_in: 31,
        used_tokens_out: 4,
      });
    });

    it("keeps the secret across a PUT that leaves it out", async () => {
      const b = await addProvider();
      await t.req("PUT", `/admin/backends/${b.id}`, {
        kind: "provider_1",
        name: "Kept",
        base_url: fake.baseUrl,
      });
      fake.enqueue({ json: { answer: "ok" } });
      expect((await json<TestResult>(t.req("POST", `/admin/backends/${b.id}/test`, { model: "m" }))).ok).toBe(
        true,
      );
      expect(fake.completions[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    });

    it.each([
      [{ status: 500 }, /500/],
      [{ status: 401 }, /401/],
      [{ status: 429, retryAfter: 9 }, /429/],
      [{ hang: true as const }, /timed out|aborted/],
      [{ raw: '{"id":' }, /not valid JSON/],
      [{ content: "I cannot do JSON" }, /not JSON/],
      [{ json: { something: "else" } }, /does not match the schema/],
    ])("answers 200 ok:false with the reason when the backend fails: %j", async (reply, reason) => {
      const b = await addProvider();
      fake.enqueue(reply);
      const res = await t.req("POST", `/admin/backends/${b.id}/test`, { model: "m" });
      expect(res.status).toBe(200);
      const body = await json<TestResult>(res);
      expect(body.ok).toBe(false);
      expect(body.error).toMatch(reason);
      expect(body).not.toHaveProperty("answer");
      expect(JSON.stringify(body)).not.toContain(SECRET);
    });

    it("never echoes the secret in an error", async () => {
      const b = await addProvider();
      fake.enqueue({ status: 401, body: { error: { message: `Incorrect API key provided: ${SECRET}` } } });
      const body = await json<TestResult>(t.req("POST", `/admin/backends/${b.id}/test`, { model: "m" }));
      expect(body.ok).toBe(false);
      expect(body.error).toContain("****");
      expect(body.error).not.toContain(SECRET);
    });

    it("runs an agent CLI backend with the prompt on stdin and in a file", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sr-admin-agent-"));
      try {
        const log = join(dir, "log.jsonl");
        for (const via of ["stdin", "file"] as const) {
          const command = [
            process.execPath,
            AGENT,
            "--model",
            "{model}",
            "--schema",
            "{schema}",
            "--log",
            log,
          ];
          if (via === "file") command.push("--prompt-file", "{prompt_file}");
          command.push("--answer", `{"answer":"ok via ${via}"}`);
          const b = await json<Backend>(
            t.req("POST", "/admin/backends", {
              kind: "agent_cli",
              name: via,
              preset: "custom",
              command,
              prompt_via: via,
            }),
          );
          const res = await json<TestResult>(
            t.req("POST", `/admin/backends/${b.id}/test`, { model: "agent-model" }),
          );
          expect(res).toMatchObject({ ok: true, answer: `ok via ${via}`, estimated: true });
          expect(res.tokens_in).toBeGreaterThan(0);
        }
        const runs = readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map(
            (l) =>
              JSON.parse(l) as {
                prompt_via: string;
                model: string;
                schema: { required: string[] };
                prompt: string;
              },
          );
        expect(runs.map((r) => r.prompt_via)).toEqual(["stdin", "file"]);
        for (const r of runs) {
          expect(r.model).toBe("agent-model");
          expect(r.schema.required).toEqual(["answer"]);
          expect(r.prompt).toContain('"answer"');
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("reports a CLI's non-zero exit as ok:false", async () => {
      const b = await json<Backend>(
        t.req("POST", "/admin/backends", {
          kind: "agent_cli",
          name: "failing",
          preset: "custom",
          command: [process.execPath, AGENT, "--exit", "2", "--stderr", "not logged in"],
        }),
      );
      const res = await json<TestResult>(t.req("POST", `/admin/backends/${b.id}/test`, { model: "m" }));
      expect(res.ok).toBe(false);
      expect(res.error).toContain("exited with 2");
      expect(res.error).toContain("not logged in");
    });

    it("404s for an unknown backend and 400s without a model", async () => {
      await problem(
        await t.req("POST", "/admin/backends/00000000-0000-4000-8000-000000000000/test", { model: "m" }),
        404,
        "not_found",
      );
      const b = await addProvider();
      await problem(await t.req("POST", `/admin/backends/${b.id}/test`, {}), 400, "validation_failed");
    });
  });

  describe("presets", () => {
    it("lists the four presets and whether each program is on PATH", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sr-path-"));
      const savedPath = process.env.PATH;
      try {
        const first = await json<Items<Preset>>(t.req("GET", "/admin/presets"));
        expect(first.items.map((p) => p.preset)).toEqual([
          "agent_preset_1",
          "agent_preset_2",
          "agent_preset_3",
          "agent_preset_4",
        ]);
        const program = first.items[0]!.command[0]!;
        writeFileSync(join(dir, program), "#!/bin/sh\nexit 0\n");
        chmodSync(join(dir, program), 0o755);
        process.env.PATH = dir;
        const alone = await json<Items<Preset>>(t.req("GET", "/admin/presets"));
        expect(alone.items.map((p) => p.installed)).toEqual([true, false, false, false]);
        process.env.PATH = `${dir}${delimiter}${savedPath ?? ""}`;
        expect((await json<Items<Preset>>(t.req("GET", "/admin/presets"))).items[0]!.installed).toBe(true);
        for (const p of alone.items) {
          expect(p.command.length).toBeGreaterThan(0);
          expect(["stdin", "file"]).toContain(p.prompt_via);
          expect(p.command.join(" ")).toContain("{model}");
        }
      } finally {
        process.env.PATH = savedPath;
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("roles", () => {
    it("assigns, lists and removes roles; refuses an unknown backend and deleting a used backend", async () => {
      const initial = await json<Items<Role>>(t.req("GET", "/admin/roles"));
      expect(initial.items).toEqual([{ role: "reviewer" }, { role: "reader" }, { role: "judge" }]);

      const unknown = await problem(
        await t.req("PUT", "/admin/roles/reviewer", {
          backend_id: "00000000-0000-4000-8000-000000000000",
          model: "m",
        }),
        400,
        "unknown_backend",
      );
      expect(unknown.errors).toEqual([{ field: "body.backend_id", message: "no such backend" }]);

      const b = await addProvider();
      const assigned = await json<Role>(
        t.req("PUT", "/admin/roles/reviewer", {
          backend_id: b.id,
          model: "gpt-big",
          price_in_per_mtok: 2.5,
          price_out_per_mtok: 10,
        }),
      );
      expect(assigned).toEqual({
        role: "reviewer",
        backend_id: b.id,
        model: "gpt-big",
        price_in_per_mtok: 2.5,
        price_out_per_mtok: 10,
      });
      await t.req("PUT", "/admin/roles/reader", { backend_id: b.id, model: "gpt-small" });
      const roles = await json<Items<Role>>(t.req("GET", "/admin/roles"));
      expect(roles.items).toEqual([
        assigned,
        { role: "reader", backend_id: b.id, model: "gpt-small" },
        { role: "judge" },
      ]);
      expect(
        (
          await json<Backend>(
            t.req("PUT", `/admin/backends/${b.id}`, {
              kind: "provider_1",
              name: "n",
              base_url: fake.baseUrl,
            }),
          )
        ).roles,
      ).toEqual(["reader", "reviewer"]);

      // Rule 7.4: a backend a role uses cannot be deleted.
      const inUse = await problem(await t.req("DELETE", `/admin/backends/${b.id}`), 409, "backend_in_use");
      expect(inUse.roles).toEqual(["reader", "reviewer"]);
      expect(await rawRows()).toHaveLength(1);

      expect((await t.req("DELETE", "/admin/roles/reviewer")).status).toBe(204);
      await problem(await t.req("DELETE", `/admin/backends/${b.id}`), 409, "backend_in_use");
      expect((await t.req("DELETE", "/admin/roles/reader")).status).toBe(204);
      expect(await t.database.db.select().from(roleAssignments)).toEqual([]);
      expect((await t.req("DELETE", `/admin/backends/${b.id}`)).status).toBe(204);
    });

    it("refuses an unknown role name and a negative price", async () => {
      const b = await addProvider();
      const bad = await problem(
        await t.req("PUT", "/admin/roles/poet", { backend_id: b.id, model: "m" }),
        400,
        "validation_failed",
      );
      expect((bad.errors as Array<{ field: string }>)[0]!.field).toBe("path.role");
      await problem(await t.req("DELETE", "/admin/roles/poet"), 400, "validation_failed");
      const price = await problem(
        await t.req("PUT", "/admin/roles/judge", { backend_id: b.id, model: "m", price_in_per_mtok: -1 }),
        400,
        "validation_failed",
      );
      expect((price.errors as Array<{ field: string }>)[0]!.field).toBe("body.price_in_per_mtok");
    });

    it("resolves a role to a client that calls its backend with the opened secret (ModelRoles)", async () => {
      expect(await t.models.forRole("judge")).toBeUndefined();
      const b = await addProvider();
      await t.req("PUT", "/admin/roles/judge", {
        backend_id: b.id,
        model: "judge-model",
        price_in_per_mtok: 1,
        price_out_per_mtok: 3,
      });
      const judge = await t.models.forRole("judge");
      expect(judge).toMatchObject({
        role: "judge",
        model: "judge-model",
        backendId: b.id,
        priceInPerMTok: 1,
        priceOutPerMTok: 3,
      });
      fake.enqueue({ json: { groups: [[1, 2]] } });
      const answer = await judge!.client.call({
        stage: "judge",
        model: judge!.model,
        system: "Group the answers.",
        prompt: "Q1 ...",
        schemaName: "judge",
        schema: { type: "object" },
      });
      expect(JSON.parse(answer.text)).toEqual({ groups: [[1, 2]] });
      expect(fake.completions[0]!.body.model).toBe("judge-model");
      expect(fake.completions[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    });
  });

  describe("settings", () => {
    it("reads the defaults, stores valid values and returns them", async () => {
      expect(await json<Settings>(t.req("GET", "/admin/settings"))).toEqual(SETTING_DEFAULTS);
      const next = {
        max_file_mb: 50,
        max_bundle_mb: 1,
        invite_ttl_days: 90,
        resolve_sources: false,
        parallel_calls: 16,
        github_association_role: "member" as const,
      };
      expect(await json<Settings>(t.req("PUT", "/admin/settings", next))).toEqual(next);
      expect(await json<Settings>(t.req("GET", "/admin/settings"))).toEqual(next);
      expect(await readSettings(t.database.db)).toEqual(next);
      // The whole object: resolve_sources and github_association_role left out take their defaults.
      const { resolve_sources: _dropped, github_association_role: _role, ...rest } = next;
      expect(await json<Settings>(t.req("PUT", "/admin/settings", rest))).toEqual({
        ...rest,
        resolve_sources: true,
        github_association_role: "off",
      });
      const admin = await t.req("PUT", "/admin/settings", { ...rest, github_association_role: "admin" });
      expect((await problem(admin, 400, "validation_failed")).errors).toEqual([
        expect.objectContaining({ field: "body.github_association_role" }),
      ]);
    });

    const intFields = Object.entries(SETTING_FIELDS).flatMap(([field, f]) =>
      "min" in f
        ? ([
            [field, f.min - 1],
            [field, f.max + 1],
            [field, f.min + 0.5],
          ] as Array<[string, number]>)
        : [],
    );
    it.each(intFields)("refuses %s = %d with 400 naming the field", async (field, value) => {
      const res = await problem(
        await t.req("PUT", "/admin/settings", { ...SETTING_DEFAULTS, [field]: value }),
        400,
        "validation_failed",
      );
      expect(res.errors).toEqual([expect.objectContaining({ field: `body.${field}` })]);
      expect(String(res.detail)).toContain(field);
      expect(await json<Settings>(t.req("GET", "/admin/settings"))).toEqual(SETTING_DEFAULTS);
    });

    it("refuses a missing required field, a wrong type and an unknown field", async () => {
      const { parallel_calls: _p, ...missing } = SETTING_DEFAULTS;
      const a = await problem(await t.req("PUT", "/admin/settings", missing), 400, "validation_failed");
      expect((a.errors as Array<{ field: string }>)[0]!.field).toBe("body.parallel_calls");
      const b = await problem(
        await t.req("PUT", "/admin/settings", { ...SETTING_DEFAULTS, resolve_sources: "yes" }),
        400,
        "validation_failed",
      );
      expect((b.errors as Array<{ field: string }>)[0]!.field).toBe("body.resolve_sources");
      const c = await problem(
        await t.req("PUT", "/admin/settings", { ...SETTING_DEFAULTS, max_upload_mb: 5 }),
        400,
        "validation_failed",
      );
      expect(String(c.detail)).toContain("max_upload_mb");
      expect(await t.database.db.select().from(settingsTable)).toEqual([]);
    });

    it("serves the same defaults and bounds in the OpenAPI document", async () => {
      const doc = await json<{
        components: {
          schemas: {
            Settings: {
              properties: Record<string, { default?: unknown; minimum?: number; maximum?: number }>;
            };
          };
        };
      }>(t.req("GET", "/openapi.json"));
      for (const [field, f] of Object.entries(SETTING_FIELDS)) {
        const p = doc.components.schemas.Settings.properties[field]!;
        expect(p.default, field).toBe(f.default);
        if ("min" in f) expect([p.minimum, p.maximum], field).toEqual([f.min, f.max]);
      }
    });
  });

  describe("budget", () => {
    it("has no budget until a limit is set; counts this month's use; null removes it", async () => {
      expect(await json<Budget>(t.req("GET", "/admin/budget"))).toEqual({
        month: "2026-11",
        limit_tokens: null,
        used_tokens_in: 0,
        used_tokens_out: 0,
        used_tokens: 0,
        remaining_tokens: null,
      });
      expect(await t.budget.remaining(clock.now())).toBeUndefined();

      expect(await json<Budget>(t.req("PUT", "/admin/budget", { limit_tokens: 1000 }))).toMatchObject({
        limit_tokens: 1000,
        remaining_tokens: 1000,
      });
      await t.budget.record(clock.now(), 300, 100);
      await t.budget.record(clock.now(), 50, 50);
      expect(await json<Budget>(t.req("GET", "/admin/budget"))).toEqual({
        month: "2026-11",
        limit_tokens: 1000,
        used_tokens_in: 350,
        used_tokens_out: 150,
        used_tokens: 500,
        remaining_tokens: 500,
      });
      expect(await t.budget.remaining(clock.now())).toBe(500);

      await t.budget.record(clock.now(), 700, 0);
      expect((await json<Budget>(t.req("GET", "/admin/budget"))).remaining_tokens).toBe(0);
      expect(await t.budget.remaining(clock.now())).toBe(0);

      // A new month (UTC) starts from zero; the limit stays.
      clock.set("2026-12-01T00:00:01Z");
      expect(await json<Budget>(t.req("GET", "/admin/budget"))).toMatchObject({
        month: "2026-12",
        limit_tokens: 1000,
        used_tokens: 0,
        remaining_tokens: 1000,
      });

      expect(await json<Budget>(t.req("PUT", "/admin/budget", { limit_tokens: null }))).toMatchObject({
        limit_tokens: null,
        remaining_tokens: null,
      });
      expect(await t.budget.remaining(clock.now())).toBeUndefined();
    });

    it("counts concurrent use exactly", async () => {
      await Promise.all(Array.from({ length: 20 }, () => t.budget.record(clock.now(), 10, 1)));
      expect(await json<Budget>(t.req("GET", "/admin/budget"))).toMatchObject({
        used_tokens_in: 200,
        used_tokens_out: 20,
      });
    });

    it.each([
      [{ limit_tokens: 0 }],
      [{ limit_tokens: -5 }],
      [{ limit_tokens: 1.5 }],
      [{}],
      [{ limit_tokens: 10, extra: 1 }],
    ])("refuses %j", async (body) => {
      await problem(await t.req("PUT", "/admin/budget", body), 400, "validation_failed");
    });
  });

  describe("logging", () => {
    it("never logs a secret: adding, changing, testing and using a backend", async () => {
      const lines: string[] = [];
      const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
        void lines.push(JSON.stringify({ level, msg, ...fields }));
      const service = new ModelService({
        db: t.database.db,
        box: SecretBox.random(),
        clock,
        logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
      });
      const b = await service.createBackend({
        kind: "provider_1",
        name: "x",
        base_url: fake.baseUrl,
        secret: SECRET,
      });
      await service.updateBackend(b.id, {
        kind: "provider_1",
        name: "y",
        base_url: fake.baseUrl,
        secret: `${SECRET}-2`,
      });
      fake.enqueue({ status: 401, body: { error: { message: `bad key ${SECRET}-2` } } });
      expect((await service.testBackend(b.id, "m")).ok).toBe(false);
      await service.assignRole("reviewer", { backend_id: b.id, model: "m" });
      expect((await service.forRole("reviewer"))?.model).toBe("m");
      expect(lines.length).toBeGreaterThanOrEqual(3);
      expect(lines.join("\n")).not.toContain(SECRET);
      expect(lines.some((l) => l.includes('"secret":"replaced"'))).toBe(true);
    });
  });

  describe("the secret key", () => {
    it("a server with another key cannot open a stored secret, and says so", async () => {
      const key = randomBytes(32);
      const other = await makeTestApp({ kind, secretKey: key, modelTimeoutMs: 1_500 });
      try {
        const res = await other.req("POST", "/admin/backends", {
          kind: "provider_1",
          name: "x",
          base_url: fake.baseUrl,
          secret: SECRET,
        });
        const b = await json<Backend>(res);
        const [row] = await other.database.db.select().from(modelBackends);
        expect(new SecretBox(key).open(row!.secretCipher!, b.id)).toBe(SECRET);
        // Bound to its row: the same ciphertext does not open as another backend's.
        expect(() => new SecretBox(key).open(row!.secretCipher!, "another-id")).toThrow();
        const wrong = new SecretBox(randomBytes(32));
        expect(() => wrong.open(row!.secretCipher!, b.id)).toThrow();
      } finally {
        await other.close();
      }
    });
  });
});

describe("loadSecretKey", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sr-key-"));
    return () => rmSync(dir, { recursive: true, force: true });
  });

  it("makes <data-dir>/secret.key with mode 0600 once, then reads it back", () => {
    const dataDir = join(dir, "data");
    const first = loadSecretKey({ env: {}, dataDir, mode: "local" });
    expect(first).toHaveLength(32);
    const file = join(dataDir, "secret.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSecretKey({ env: {}, dataDir, mode: "local" }).equals(first)).toBe(true);
  });

  it("prefers SPEC_REVIEW_SECRET_KEY, refuses a key that is not 32 bytes, and needs it in hosted mode", () => {
    const key = randomBytes(32);
    expect(
      loadSecretKey({
        env: { [SECRET_KEY_ENV]: key.toString("base64") },
        dataDir: dir,
        mode: "local",
      }).equals(key),
    ).toBe(true);
    expect(() => statSync(join(dir, "secret.key"))).toThrow();
    expect(() =>
      loadSecretKey({ env: { [SECRET_KEY_ENV]: randomBytes(16).toString("base64") }, mode: "hosted" }),
    ).toThrow(/32 bytes/);
    expect(() => loadSecretKey({ env: {}, dataDir: dir, mode: "hosted" })).toThrow(SECRET_KEY_ENV);
  });
});
