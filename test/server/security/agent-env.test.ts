/**
 * Issue 9: an agent CLI runs with a minimal environment, never the server's database address,
 * its secret key or other secrets of its environment.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentCliClient, agentEnv } from "../../../server/models/agent-cli.js";
import { modelClientFor } from "../../../server/models/clients.js";

const CALL = {
  stage: "test",
  system: "s",
  prompt: "p",
  schemaName: "env",
  schema: { type: "object" },
  model: "m",
} as const;

const PRINT_ENV = [process.execPath, "-e", "process.stdout.write(JSON.stringify(process.env))"];

describe("the agent CLI environment", () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.DATABASE_URL = "postgres://u:db-password-77@db/specs";
    process.env.SPEC_REVIEW_SECRET_KEY = "c2VjcmV0LWtleS1zZWNyZXQta2V5LXNlY3JldC1rZXk=";
    process.env.GITHUB_TOKEN = "ghp_server_token_not_for_the_cli_000000000";
    process.env.ANTHROPIC_API_KEY = "operator-anthropic-key";
    process.env.LANG = "en_US.UTF-8";
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it("gives a custom command only the basics and its secret", async () => {
    const client = modelClientFor(
      { kind: "agent_cli", preset: "custom", command: PRINT_ENV, promptVia: "stdin" },
      "backend-secret-1234",
    );
    const env = JSON.parse((await client.call(CALL)).text) as Record<string, string>;
    expect(env.SPEC_REVIEW_AGENT_SECRET).toBe("backend-secret-1234");
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.LANG).toBe("en_US.UTF-8");
    for (const name of ["DATABASE_URL", "SPEC_REVIEW_SECRET_KEY", "GITHUB_TOKEN", "ANTHROPIC_API_KEY"])
      expect(env[name], name).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain("db-password-77");
  });

  it("gives a preset the variables its CLI reads, and never the server's secrets", () => {
    const env = agentEnv(process.env, {
      passEnv: ["ANTHROPIC_API_KEY", "DATABASE_URL"],
      env: { SPEC_REVIEW_SECRET_KEY: "x" },
    });
    expect(env.ANTHROPIC_API_KEY).toBe("operator-anthropic-key");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.SPEC_REVIEW_SECRET_KEY).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it("stops a CLI that prints without end", async () => {
    const client = new AgentCliClient({
      command: [
        process.execPath,
        "-e",
        "const b = 'x'.repeat(1 << 20); const w = () => process.stdout.write(b, w); w()",
      ],
      promptVia: "stdin",
      timeoutMs: 20_000,
    });
    await expect(client.call(CALL)).rejects.toThrow(/printed more than/);
  });
});
