/**
 * `spec-review lsp` over stdio: hover, completion in the frontmatter, go to definition,
 * document symbols, settings through workspace/configuration, and "Request a waiver…"
 * against a stand-in service that answers the API's two calls (GET /bundles, GET
 * /docs/{docId}/files/content) as the contract shapes them.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  CodeAction,
  CompletionItem,
  DocumentSymbol,
  Hover,
  Location,
  MarkupContent,
} from "vscode-languageserver-protocol";
import { LspClient, positionAt, uriOf, workspaceCopy } from "./client.js";

const KEP = "keps/sig-node/4711-restart-budget/README.md";
const PRD = "product/restart-budget/prd.md";

let root: string;
let client: LspClient;
let kep: string;
let kepUri: string;

/** The stand-in service: one bundle, whose doc's content is `served`. */
let service: Server;
let serviceUrl: string;
let served = "";
const requests: { url: string; auth?: string }[] = [];

beforeAll(async () => {
  root = workspaceCopy();
  // A folder of extra profiles the settings name.
  const extra = join(root, "team-profiles", "runbook");
  mkdirSync(extra, { recursive: true });
  writeFileSync(
    join(extra, "profile.yaml"),
    [
      "key: runbook",
      "title: Operations runbook",
      "radar:",
      "  - key: ops",
      "    title: Operations",
      "checks:",
      "  - slug: rollback",
      "    kind: required-section",
      "    level: MUST",
      "    category: ops",
      "    params: { section: Rollback }",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(extra, "template.md"),
    "---\ntype: runbook\n---\n# Service\n\n## Rollback\n\n{{Steps.}}\n",
  );
  service = createServer((req, res) => {
    requests.push({
      url: req.url!,
      ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
    });
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/api/v1/bundles") {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          items: [
            {
              slug: "sig-node/4711-restart-budget",
              docs: [
                {
                  id: "7d1c2a8e-0000-4000-8000-000000004711",
                  slug: "sig-node/4711-restart-budget",
                  path: "README.md",
                  title: "KEP-4711: Restart budgets",
                },
              ],
            },
            {
              slug: "restart-budget",
              docs: [
                {
                  id: "0c9e4b6a-0000-4000-8000-000000000001",
                  slug: "restart-budget",
                  path: "prd.md",
                  title: "Restart budgets for long-running pods",
                  verdict: { result: "not_build_ready", kind: "full", must: 1, should: 2, info: 0 },
                },
              ],
            },
          ],
          problems: [],
        }),
      );
    } else if (url.pathname === "/api/v1/docs/7d1c2a8e-0000-4000-8000-000000004711/files/content") {
      res.end(served);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => service.listen(0, "127.0.0.1", r));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  ({ client } = await LspClient.start({ root }));
  kep = readFileSync(join(root, KEP), "utf8");
  kepUri = uriOf(join(root, KEP));
  await client.open(kepUri, kep);
});
afterAll(async () => {
  if (client.child.exitCode === null) await client.stop();
  await new Promise((r) => service.close(r));
  rmSync(root, { recursive: true, force: true });
});

const at = (text: string, needle: string, offset = 0) => positionAt(text, text.indexOf(needle) + offset);
const hoverText = (h: Hover | null) => (h?.contents as MarkupContent | undefined)?.value ?? "";

describe("spec-review lsp: reading help", () => {
  it("hovers a finding with its explanation and why it matters", async () => {
    const h = await client.request<Hover | null>("textDocument/hover", {
      textDocument: { uri: kepUri },
      position: at(kep, "TBD", 1),
    });
    const text = hoverText(h);
    expect(text).toContain("**SHOULD** `undecided-elsewhere`");
    expect(text).toContain("The check (forbidden-pattern)");
    expect(text).toMatch(/\[About this check\]\(file:.*forbidden-pattern\.md\)/);
  });

  it("hovers a bundle link and a trace ID with the title and verdict read from the files", async () => {
    const link = hoverText(
      await client.request<Hover | null>("textDocument/hover", {
        textDocument: { uri: kepUri },
        position: at(kep, "product/restart-budget", 4),
      }),
    );
    expect(link).toContain("**Restart budgets for long-running pods** (`product/restart-budget`)");
    expect(link).toMatch(/Build Ready \(lint\): 0 MUST/);
    const id = hoverText(
      await client.request<Hover | null>("textDocument/hover", {
        textDocument: { uri: kepUri },
        position: at(kep, "REQ-002", 2),
      }),
    );
    expect(id).toContain("**REQ-002**, defined in Restart budgets for long-running pods");
    expect(id).toContain("The kubelet MUST stop restarting a container");
  });

  it("goes to a linked bundle's doc and to the line that defines a trace ID", async () => {
    const prdUri = uriOf(join(root, PRD));
    const link = await client.request<Location | null>("textDocument/definition", {
      textDocument: { uri: kepUri },
      position: at(kep, "product/restart-budget", 2),
    });
    expect(link?.uri).toBe(prdUri);
    const id = await client.request<Location | null>("textDocument/definition", {
      textDocument: { uri: kepUri },
      position: at(kep, "REQ-001"),
    });
    const prd = readFileSync(join(root, PRD), "utf8");
    expect(id?.uri).toBe(prdUri);
    expect(id?.range.start.line).toBe(at(prd, "REQ-001").line);
  });

  it("completes type, status and bundle slugs in the frontmatter", async () => {
    const uri = uriOf(join(root, "keps/sig-node/4712-new/README.md"));
    const draft = "---\ntype: \nstatus: \nimplements: \n---\n\n# KEP-4712\n";
    await client.open(uri, draft);
    const labels = async (line: number, character: number) =>
      (
        await client.request<CompletionItem[]>("textDocument/completion", {
          textDocument: { uri },
          position: { line, character },
        })
      ).map((i) => i.label);
    expect(await labels(1, 6)).toEqual(expect.arrayContaining(["kep", "prd", "rfc", "adr"]));
    const typed = "---\ntype: kep\nstatus: \nimplements: \n---\n\n# KEP-4712\n";
    await client.change(uri, 2, [{ text: typed }]);
    expect(await labels(2, 8)).toEqual([
      "provisional",
      "implementable",
      "implemented",
      "deferred",
      "rejected",
      "withdrawn",
      "replaced",
    ]);
    const slugs = await labels(3, 12);
    expect(slugs).toEqual(
      expect.arrayContaining(["keps/sig-node/4711-restart-budget", "product/restart-budget"]),
    );
    expect(slugs).not.toContain("keps/sig-node/4712-new");
    expect(await labels(6, 3)).toEqual([]); // the body: nothing
  });

  it("lists the sections as document symbols, nested", async () => {
    const syms = await client.request<DocumentSymbol[]>("textDocument/documentSymbol", {
      textDocument: { uri: kepUri },
    });
    expect(syms.map((s) => s.name)).toEqual(["KEP-4711: Restart budgets"]);
    const top = syms[0]!.children!.map((s) => s.name);
    expect(top).toEqual([
      "Summary",
      "Motivation",
      "Proposal",
      "Design Details",
      "Production Readiness Review Questionnaire",
      "Implementation History",
      "Drawbacks",
    ]);
    const motivation = syms[0]!.children![1]!;
    expect(motivation.children!.map((s) => s.name)).toEqual(["Goals", "Non-Goals"]);
    expect(motivation.selectionRange.start).toEqual(at(kep, "## Motivation"));
  });

  it("takes settings through workspace/configuration: extra profiles and the service", async () => {
    client.settings = { profiles: ["team-profiles"], serviceUrl };
    const uri = uriOf(join(root, "ops/payments-runbook/runbook.md"));
    const text = "---\ntype: runbook\n---\n# Payments\n\n## Alerts\n\nPage the payments on-call.\n";
    const relinted = client.diagnosticsWhere(kepUri, (p) =>
      p.diagnostics.some((d) => d.codeDescription?.href.startsWith(serviceUrl)),
    );
    await client.notify("workspace/didChangeConfiguration", { settings: null });
    const kepDiagnostics = await relinted;
    expect(kepDiagnostics.diagnostics[0]!.codeDescription!.href).toMatch(
      new RegExp(`^${serviceUrl}/help/checks/[a-z-]+$`),
    );
    const { diagnostics } = await client.open(uri, text);
    expect(diagnostics.map((d) => d.code)).toEqual(["rollback"]);
    const types = await client.request<CompletionItem[]>("textDocument/completion", {
      textDocument: { uri },
      position: { line: 1, character: 6 },
    });
    expect(types.map((t) => t.label)).toContain("runbook");
  });

  it("adds the service's verdict of a linked bundle to its hover", async () => {
    const link = hoverText(
      await client.request<Hover | null>("textDocument/hover", {
        textDocument: { uri: kepUri },
        position: at(kep, "product/restart-budget", 4),
      }),
    );
    expect(link).toContain("Build Ready (lint): 0 MUST");
    expect(link).toContain(`On ${serviceUrl}: Not Build Ready (full): 1 MUST, 2 SHOULD, 0 INFO`);
  });

  it("asks for a waiver on the service only when the buffer is the service's version", async () => {
    const current = client.published.filter((p) => p.uri === kepUri).at(-1)!;
    const finding = current.diagnostics.find((d) => d.code === "undecided-elsewhere")!;
    const actions = await client.request<CodeAction[]>("textDocument/codeAction", {
      textDocument: { uri: kepUri },
      range: finding.range,
      context: { diagnostics: [finding] },
    });
    const waiver = actions.find((a) => a.title.startsWith("Request a waiver…"))!;
    const run = () =>
      client.request("workspace/executeCommand", {
        command: waiver.command!.command,
        arguments: waiver.command!.arguments,
      });

    served = kep.replace("TBD", "to be agreed");
    const shownBefore = client.shown.length;
    await run();
    expect(client.shown.length).toBe(shownBefore);
    expect(client.messages.at(-1)?.message).toMatch(/differs from the service's version/);

    served = kep;
    await run();
    const id = (finding.data as { id: string }).id;
    expect(client.shown.at(-1)).toEqual({
      uri: `${serviceUrl}/docs/7d1c2a8e-0000-4000-8000-000000004711?finding=${id}`,
      external: true,
    });
    expect(requests.some((r) => r.url.startsWith("/api/v1/bundles"))).toBe(true);
  });
});
