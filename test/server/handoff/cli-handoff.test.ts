/**
 * `spec-review handoff <docId or path> [--out DIR]` against a real HTTP server: writes
 * the same files the .zip holds (HANDOFF.md, the spec files, links/, handoff.json); a
 * refused handoff exits 1 with the problem's code and writes nothing.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { json, makeTestApp, type TestApp } from "../../helpers/app.js";
import { handoffCommand } from "../../../cli/handoff.js";

const FIXTURE = resolve(import.meta.dirname, "../../../fixtures/verify");

describe("spec-review handoff", () => {
  let t: TestApp;
  let server: ServerType;
  let url: string;
  let docId: string;
  const out = mkdtempSync(join(tmpdir(), "sr-handoff-out-"));

  beforeAll(async () => {
    t = await makeTestApp({ fixture: FIXTURE });
    await t.runs.idle();
    server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((r) => server.once("listening", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const list = await json<{ items: { slug: string; docs: { id: string }[] }[] }>(t.req("GET", "/bundles"));
    docId = list.items.find((b) => b.slug === "giftcards")!.docs[0]!.id;
  }, 120_000);
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await t.close();
    rmSync(out, { recursive: true, force: true });
  });

  const walk = (dir: string, prefix = ""): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    );

  it("writes the packet's files by doc id and by bundle path, the same as the .zip", async () => {
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const byId = join(out, "by-id");
      expect(await handoffCommand([docId, "--out", byId, "--server", url, "--label", "cli"], {})).toBe(0);
      expect(walk(byId).sort()).toEqual([
        "HANDOFF.md",
        "assets/flow.png",
        "handoff.json",
        "links/payments.md",
        "prd.md",
      ]);
      expect(readFileSync(join(byId, "prd.md"))).toEqual(readFileSync(join(FIXTURE, "giftcards/prd.md")));
      expect(readFileSync(join(byId, "assets/flow.png"))).toEqual(
        readFileSync(join(FIXTURE, "giftcards/assets/flow.png")),
      );
      expect(readFileSync(join(byId, "HANDOFF.md"), "utf8")).toMatch(/^# Build: Gift card redemption online/);
      expect(JSON.parse(readFileSync(join(byId, "handoff.json"), "utf8"))).toMatchObject({
        slug: "giftcards",
        label: "cli",
      });

      const byPath = join(out, "by-path");
      expect(await handoffCommand(["giftcards/prd.md", "-o", byPath, "-s", url], {})).toBe(0);
      const zip = unzipSync(
        new Uint8Array(await (await t.req("POST", `/docs/${docId}/handoff/zip`, {})).arrayBuffer()),
      );
      expect(walk(byPath).sort()).toEqual(Object.keys(zip).sort());
      for (const [path, bytes] of Object.entries(zip))
        if (path !== "HANDOFF.md" && path !== "handoff.json")
          expect(readFileSync(join(byPath, path))).toEqual(Buffer.from(bytes));
      expect(stdout.mock.calls.map((c) => String(c[0])).join("")).toContain("the agent reads");
    } finally {
      stdout.mockRestore();
    }
  });

  it("exits 1 with the problem when the service refuses, 2 on usage errors, and writes nothing", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const dir = join(out, "nothing");
      expect(await handoffCommand(["no/such/bundle", "--out", dir, "--server", url], {})).toBe(1);
      expect(
        await handoffCommand(["00000000-0000-4000-8000-000000000000", "--out", dir, "--server", url], {}),
      ).toBe(1);
      expect(await handoffCommand([], {})).toBe(2);
      expect(await handoffCommand([docId, "--bogus"], {})).toBe(2);
      expect(await handoffCommand([docId, "--out", dir, "--server", "http://127.0.0.1:9"], {})).toBe(1);
      expect(existsSync(dir)).toBe(false);
      const text = stderr.mock.calls.map((c) => String(c[0])).join("");
      expect(text).toContain("no bundle at no/such/bundle");
      expect(text).toContain("404 not_found");
    } finally {
      stderr.mockRestore();
    }
  });
});
