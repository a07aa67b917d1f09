/**
 * `spec-review mcp` as a real process, driven over stdio by the SDK's client: on a folder
 * (the service inside the process), and with --url on a real listening service (hosted,
 * with and without an API token); the build packet's files as resources; usage errors.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { packageRoot } from "../../../node/package.js";
import { BuildPacketSchema } from "../../../server/schemas/handoffs.js";
import { json } from "../../helpers/app.js";
import { Hosted } from "../auth/helpers.js";
import { startContractPeer } from "./contract-peer.js";
import { call, listen, ok, problemOf, stdioClient, textOf } from "./helpers.js";

// A process that starts tsx, opens PGlite and migrates takes a while on a busy machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const DEMO = resolve(import.meta.dirname, "../../../fixtures/demo");
const MAIN = join(packageRoot(), "cli", "main.ts");

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function spawnMcp(args: string[], env: Record<string, string> = {}) {
  const started = await stdioClient(args, env);
  cleanups.push(() => started.client.close());
  return started;
}

interface BundleView {
  slug: string;
  state: string;
  docs: Array<{ id: string; path: string; verdict: { result: string; must: number } | null }>;
}

describe("spec-review mcp over stdio", () => {
  it("serves a folder: bundles and verdicts, findings, files, a handoff, and the API's problems as tool errors", async () => {
    const folder = tempDir("sr-mcp-stdio-");
    cpSync(DEMO, folder, { recursive: true, filter: (src) => !src.includes(".spec-review") });
    const { client, stderr } = await spawnMcp([folder]);
    expect(client.getServerVersion()?.name).toBe("spec-review");
    expect(client.getInstructions()).toMatch(/list_bundles/);

    // Every doc is linted on start, in the background (the folder is served meanwhile):
    // ask until each doc has its verdict, as a client would.
    let bundles: BundleView[] = [];
    for (let i = 0; i < 600; i++) {
      ({ bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles")));
      if (bundles.every((b) => b.docs.every((d) => d.verdict !== null))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(bundles.map((b) => b.slug)).toEqual([
      "checkout",
      "checkout/api",
      "checkout/design",
      "decisions/0001-use-postgres",
      "saved-searches",
    ]);
    // Each doc has a verdict, and the bundle state follows from them.
    for (const b of bundles) {
      for (const d of b.docs) expect(d.verdict, `${b.slug}/${d.path}`).not.toBeNull();
      const results = b.docs.map((d) => d.verdict!.result);
      expect(b.state).toBe(results.includes("not_build_ready") ? "not_build_ready" : "build_ready");
    }
    const checkout = bundles.find((b) => b.slug === "checkout")!.docs[0]!;
    const { findings } = ok<{ findings: Array<{ level: string; file: string }> }>(
      await call(client, "get_findings", { doc_id: checkout.id, level: "MUST" }),
    );
    expect(findings).toHaveLength(checkout.verdict!.must);
    expect(findings.every((f) => f.level === "MUST" && f.file === "prd.md")).toBe(true);

    const prd = await client.readResource({ uri: `spec-review://docs/${checkout.id}/files/prd.md` });
    expect((prd.contents[0] as { text: string }).text).toBe(
      readFileSync(join(folder, "checkout", "prd.md"), "utf8"),
    );

    // A handoff of a doc that is not Build Ready is refused with the API's own problem;
    // acknowledged, the packet comes with its prompt as a resource.
    if (checkout.verdict!.result !== "build_ready") {
      const refused = await call(client, "take_handoff", { doc_id: checkout.id });
      expect(problemOf(refused)).toMatchObject({ status: 409, code: "handoff_not_ready" });
    }
    const handoff = await call(client, "take_handoff", { doc_id: checkout.id, acknowledged: true });
    expect(handoff.isError, textOf(handoff)).toBeFalsy();
    expect(textOf(handoff)).toMatch(
      /read the prompt first \(spec-review:\/\/handoffs\/[0-9a-f-]+\/prompt\.md\)/,
    );
    // A verification of a folder outside what local mode reads is the API's problem too.
    const verify = await call(client, "start_verification", { doc_id: checkout.id, path: "/etc" });
    expect(problemOf(verify)).toMatchObject({ status: 403, code: "folder_not_allowed" });

    const invalid = await call(client, "list_threads", { doc_id: 42 });
    expect(textOf(invalid)).toMatch(/Input validation error.*doc_id/);

    // stdout carries MCP only; the start line and logs go to stderr. The data folder is serve's.
    expect(stderr()).toMatch(/spec-review mcp: serving .* over stdio/);
    expect(readFileSync(join(folder, ".spec-review", "data", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("--url: a hosted service through its API with SPEC_REVIEW_TOKEN; without a valid token, each tool says 401", async () => {
    const h = await Hosted.open("pglite");
    cleanups.push(() => h.t.close());
    const ada = await h.signUp("member", "ada@example.com", "Ada");
    const { token } = await json<{ token: string }>(
      h.as(ada.cookie, "POST", "/me/tokens", { name: "agent" }),
    );
    const bearer = { authorization: `Bearer ${token}` };
    const made = await h.t.req("POST", "/bundles", { profile: "rfc", name: "rfc-0042-streaming" }, bearer);
    expect(made.status, await made.clone().text()).toBe(201);
    const s = await listen(h.t.app);
    cleanups.push(() => s.close());

    const { client } = await spawnMcp(["--url", s.url], { SPEC_REVIEW_TOKEN: token });
    // Every doc is linted on start, in the background (the folder is served meanwhile):
    // ask until each doc has its verdict, as a client would.
    let bundles: BundleView[] = [];
    for (let i = 0; i < 600; i++) {
      ({ bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles")));
      if (bundles.every((b) => b.docs.every((d) => d.verdict !== null))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(bundles.map((b) => b.slug)).toEqual(["rfc-0042-streaming"]);

    const anonymous = await spawnMcp(["--url", `${s.url}/api/v1`]);
    expect(problemOf(await call(anonymous.client, "list_bundles"))).toMatchObject({
      status: 401,
      code: "unauthenticated",
    });
    expect(anonymous.stderr()).toMatch(/refuses requests without a token: set SPEC_REVIEW_TOKEN/);

    const wrong = await spawnMcp(["--url", s.url], { SPEC_REVIEW_TOKEN: "srt_made_up" });
    expect(problemOf(await call(wrong.client, "list_bundles"))).toMatchObject({
      status: 401,
      code: "invalid_token",
    });
  });

  it("--url: a service that is down answers each tool with why, and the server stays up", async () => {
    const s = await listen({ fetch: () => new Response("") });
    const url = s.url;
    await s.close(); // nothing listens there now
    const { client, stderr } = await spawnMcp(["--url", url]);
    const result = await call(client, "list_bundles");
    expect(problemOf(result)).toMatchObject({ code: "unavailable" });
    expect(stderr()).toMatch(/cannot reach/);
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
  });

  describe("against the contract of the operations built on other branches", () => {
    // Handoff, threads and verification are built on other branches. Until they are on main,
    // a stand-in answers at their contract paths and holds each body to the contract's own
    // schema (contract-peer.ts), so what the tools send and do with the answers is tested
    // end to end over stdio.
    const PACKET = BuildPacketSchema.parse({
      handoff_id: "5f0c2a8e-1b7d-4c3e-9a6f-2d8e4b1c7a90",
      slug: "checkout",
      main_path: "prd.md",
      files: [
        {
          path: "prd.md",
          content:
            "---\r\ntype: prd\r\n---\r\n\r\n# One-page checkout 🛒\r\n\r\n- CHK-1: MUST pay from one page.\r\n",
          encoding: "text",
        },
        { path: "flow.svg", content: "<svg xmlns='http://www.w3.org/2000/svg'/>", encoding: "text" },
        {
          path: "assets/search bar.png",
          content: Buffer.from("\x89PNG\r\n\x1a\n", "latin1").toString("base64"),
          encoding: "base64",
        },
        { path: "links/checkout-api.md", content: "# Checkout API\n", encoding: "text" },
      ],
      external_targets: [{ target: "https://github.com/acme/shop", kind: "code", commit: "9f1c2e3" }],
      ids: [{ id: "CHK-1", line: "- CHK-1: MUST pay from one page." }],
      questions: [
        {
          id: "0d3c9a4e-6b2f-4f1a-8e7d-5c4b3a2f1e0d",
          number: 1,
          text: "Which tax table?",
          level: "MUST",
          result: "agree",
          answer: "EU VAT",
        },
      ],
      reentry_prompt: "# Build checkout\r\n\r\nRead prd.md first. 🚀\r\n",
    });
    const DOC = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d";

    async function peerSession() {
      const peer = await startContractPeer({ packet: PACKET, queuedReads: 2 });
      cleanups.push(() => peer.close());
      const { client } = await spawnMcp(["--url", peer.url], { SPEC_REVIEW_TOKEN: "srt_agent" });
      return { peer, client };
    }

    it("take_handoff embeds every packet file, lists them for the session, and reads each back exactly", async () => {
      const { peer, client } = await peerSession();
      let changed = 0;
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed++);
      const result = await call(client, "take_handoff", { doc_id: DOC, label: "acme/shop#12" });
      expect(result.isError).toBeFalsy();
      expect(peer.requests.filter((r) => r.method === "POST")).toEqual([
        {
          method: "POST",
          path: `/docs/${DOC}/handoff`,
          authorization: "Bearer srt_agent",
          body: { label: "acme/shop#12" },
        },
      ]);
      expect(textOf(result)).toMatch(
        /read the prompt first \(spec-review:\/\/handoffs\/5f0c2a8e-[^)]+\/prompt\.md\)/,
      );

      const base = `spec-review://handoffs/${PACKET.handoff_id}/`;
      const embedded = result.content.filter((c) => c.type === "resource").map((c) => c.resource);
      expect(embedded.map((r) => r.uri)).toEqual([
        `${base}prompt.md`,
        `${base}manifest.json`,
        `${base}files/prd.md`,
        `${base}files/flow.svg`,
        `${base}files/assets/search%20bar.png`,
        `${base}files/links/checkout-api.md`,
      ]);
      expect(embedded[0]).toMatchObject({ mimeType: "text/markdown", text: PACKET.reentry_prompt });
      expect(embedded[2]).toMatchObject({ mimeType: "text/markdown", text: PACKET.files[0]!.content });
      expect(embedded[3]).toMatchObject({ mimeType: "image/svg+xml" });
      expect(embedded[4]).toMatchObject({ mimeType: "image/png", blob: PACKET.files[2]!.content });
      const manifest = JSON.parse((embedded[1] as { text: string }).text) as Record<string, unknown>;
      expect(manifest).toMatchObject({
        handoff_id: PACKET.handoff_id,
        main_path: "prd.md",
        ids: PACKET.ids,
        questions: PACKET.questions,
        external_targets: PACKET.external_targets,
      });
      expect(JSON.stringify(manifest)).not.toContain("One-page checkout"); // no file contents in it

      const listed = await client.listResources();
      expect(listed.resources.map((r) => r.uri)).toEqual(embedded.map((r) => r.uri));
      const read = await client.readResource({ uri: `${base}files/assets/search%20bar.png` });
      expect(Buffer.from((read.contents[0] as { blob: string }).blob, "base64").toString("latin1")).toBe(
        "\x89PNG\r\n\x1a\n",
      );
      const prompt = await client.readResource({ uri: `${base}prompt.md` });
      expect((prompt.contents[0] as { text: string }).text).toBe(PACKET.reentry_prompt);
      await vi.waitFor(() => expect(changed).toBe(1));
    });

    it("asks, reports and verifies with the bodies the contract takes, and waits for a run to end", async () => {
      const { peer, client } = await peerSession();
      const asked = ok<{
        id: string;
        anchor: unknown;
        addressed_to: string;
        title: string;
        answering: boolean;
      }>(
        await call(client, "ask_question", {
          doc_id: DOC,
          question: 'Does CHK-2\'s total include the EU VAT? ✅\nThe PRD says "tax" only.',
          section: ["Goals"],
          handoff_id: PACKET.handoff_id,
        }),
      );
      expect(asked).toMatchObject({
        addressed_to: "ai",
        title: "Does CHK-2's total include the EU VAT? ✅",
        answering: true,
      });
      expect(asked.anchor).toEqual({ heading_path: ["Goals"] });
      ok(await call(client, "ask_question", { doc_id: DOC, question: "Why 38%?", addressed_to: "humans" }));
      ok(
        await call(client, "ask_question", {
          doc_id: DOC,
          question: "Is this finding right?",
          finding_id: "5c746e10-a730-89ae-8b52-5fdbf4344224",
          check_slug: "size-unknown",
          blocking: true,
        }),
      );
      const report = ok<{ result: string; thread_id?: string }>(
        await call(client, "report_handoff", {
          handoff_id: PACKET.handoff_id,
          result: "blocked",
          notes: "The refund flow is not specified.",
          section: ["Goals"],
        }),
      );
      expect(report.result).toBe("blocked");
      expect(report.thread_id).toBeDefined();
      const run = ok<{ id: string; status: string }>(
        await call(client, "start_verification", {
          doc_id: DOC,
          repo: "acme/shop",
          sha: "9f1c2e3",
          handoff_id: PACKET.handoff_id,
          claims: [
            {
              trace_id: "CHK-1",
              targets: [{ kind: "code", path: "src/checkout.ts", quote: "// CHK-1", line: 3 }],
            },
          ],
        }),
      );
      expect(run.status).toBe("queued");
      const queued = ok<{ status: string }>(await call(client, "get_verification", { run_id: run.id }));
      expect(queued.status).toBe("queued"); // no wait: one read
      const done = ok<{ status: string; verdict: string; outcomes: Array<{ outcome: string }> }>(
        await call(client, "get_verification", { run_id: run.id, wait_seconds: 30 }),
      );
      expect(done).toMatchObject({
        status: "done",
        verdict: "verified",
        outcomes: [{ outcome: "implemented" }],
      });

      const posts = peer.requests.filter((r) => r.method === "POST");
      expect(posts.map((r) => r.body)).toEqual([
        {
          anchor_kind: "section",
          anchor: { heading_path: ["Goals"] },
          addressed_to: "ai",
          title: "Does CHK-2's total include the EU VAT? ✅",
          body: 'Does CHK-2\'s total include the EU VAT? ✅\nThe PRD says "tax" only.',
          handoff_id: PACKET.handoff_id,
        },
        {
          anchor_kind: "section",
          anchor: { heading_path: [] },
          addressed_to: "humans",
          title: "Why 38%?",
          body: "Why 38%?",
        },
        {
          anchor_kind: "finding",
          anchor: { finding_id: "5c746e10-a730-89ae-8b52-5fdbf4344224", check_slug: "size-unknown" },
          addressed_to: "ai",
          title: "Is this finding right?",
          body: "Is this finding right?",
          blocking: true,
        },
        { result: "blocked", body: "The refund flow is not specified.", anchor: { heading_path: ["Goals"] } },
        {
          repo: "acme/shop",
          sha: "9f1c2e3",
          handoff_id: PACKET.handoff_id,
          claims: [
            {
              trace_id: "CHK-1",
              targets: [{ kind: "code", path: "src/checkout.ts", quote: "// CHK-1", line: 3 }],
            },
          ],
        },
      ]);
      expect(posts.every((r) => r.authorization === "Bearer srt_agent")).toBe(true);
    });
  });

  it("usage errors exit 2 and say why; --help prints the usage", () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", MAIN, "mcp", ...args], {
        cwd: packageRoot(),
        encoding: "utf8",
        timeout: 120_000,
        input: "",
      });
    const both = run("--url", "http://127.0.0.1:8787", "specs");
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--url connects to a running service/);
    const ftp = run("--url", "ftp://example.com");
    expect(ftp.status).toBe(2);
    expect(ftp.stderr).toMatch(/--url must be an http\(s\) URL/);
    const missing = run(join(tmpdir(), "sr-no-such-folder-" + process.pid));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/is not a folder/);
    expect(existsSync(join(tmpdir(), "sr-no-such-folder-" + process.pid))).toBe(false);
    const help = run("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: spec-review mcp \[folder\]/);
  });
});
