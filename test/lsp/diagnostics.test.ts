/**
 * `spec-review lsp` driven by a real LSP client over stdio: initialize, open, change,
 * diagnostics (levels, codes, check pages, exact ranges after emoji and CJK, in UTF-16 and
 * in a negotiated UTF-8), docs that are no spec, the config's types, an invalid
 * profile.yaml, a renamed bundle, code actions applied, shutdown.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeAction, Diagnostic } from "vscode-languageserver-protocol";
import { applyTextEdits, LspClient, positionAt, uriOf, workspaceCopy } from "./client.js";

const KEP = "keps/sig-node/4711-restart-budget/README.md";
const RFC = "rfcs/0042-lazy-imports.md";

let root: string;
let client: LspClient;
/** The KEP's buffer, as the tests left it. */
let kepText = "";
let initResult: Awaited<ReturnType<typeof LspClient.start>>["init"];

beforeAll(async () => {
  root = workspaceCopy();
  ({ client, init: initResult } = await LspClient.start({ root }));
});
afterAll(async () => {
  if (client.child.exitCode === null) await client.stop();
  rmSync(root, { recursive: true, force: true });
});

const read = (rel: string) => readFileSync(join(root, rel), "utf8");
const byCode = (ds: Diagnostic[], code: string) => ds.filter((d) => d.code === code);

describe("spec-review lsp: diagnostics", () => {
  it("initializes with the features it serves, in UTF-16 when the client offers nothing else", () => {
    const caps = initResult.capabilities;
    expect(caps.positionEncoding).toBe("utf-16");
    expect(caps.hoverProvider).toBe(true);
    expect(caps.definitionProvider).toBe(true);
    expect(caps.documentSymbolProvider).toBe(true);
    expect(caps.codeActionProvider).toBeTruthy();
    expect(caps.completionProvider).toBeTruthy();
    expect(initResult.serverInfo?.name).toBe("spec-review");
  });

  it("publishes the lint's findings on open: levels, check slugs, check pages, exact ranges after emoji and CJK", async () => {
    const text = read(KEP);
    const { diagnostics, version } = await client.open(uriOf(join(root, KEP)), text);
    expect(version).toBe(1);
    const tbd = byCode(diagnostics, "undecided-elsewhere");
    expect(tbd).toHaveLength(1);
    // The line holds 🚀 (two UTF-16 units) and 東京 before the finding.
    const at = text.indexOf("TBD");
    expect(tbd[0]!.range).toEqual({ start: positionAt(text, at), end: positionAt(text, at + 3) });
    expect(text.slice(text.lastIndexOf("\n", at) + 1, at)).toContain("🚀 東京");
    expect(tbd[0]!.severity).toBe(2); // SHOULD: Warning
    expect(tbd[0]!.source).toBe("spec-review");
    expect(byCode(diagnostics, "template-placeholder")[0]!.severity).toBe(1); // MUST: Error
    expect(byCode(diagnostics, "prr-scalability")[0]!.severity).toBe(3); // INFO: Information
    const href = tbd[0]!.codeDescription!.href;
    expect(href).toMatch(/^file:.*\/docs\/checks\/forbidden-pattern\.md$/);
    expect(existsSync(fileURLToPath(href))).toBe(true);
  });

  it("lints every change, by version, and the finding fixed is gone", async () => {
    const uri = uriOf(join(root, KEP));
    const text = read(KEP);
    const at = text.indexOf("TBD");
    const { diagnostics, version } = await client.change(uri, 2, [
      {
        range: { start: positionAt(text, at), end: positionAt(text, at + 3) },
        text: "three restarts an hour",
      },
    ]);
    expect(version).toBe(2);
    expect(byCode(diagnostics, "undecided-elsewhere")).toEqual([]);
    expect(byCode(diagnostics, "template-placeholder")).toHaveLength(2);
  });

  it("counts positions in UTF-8 when the client offers only that", async () => {
    const other = await LspClient.start({ root, positionEncodings: ["utf-8"] });
    try {
      expect(other.init.capabilities.positionEncoding).toBe("utf-8");
      const text = read(KEP);
      const { diagnostics } = await other.client.open(uriOf(join(root, KEP)), text);
      const at = text.indexOf("TBD");
      const lineStart = text.lastIndexOf("\n", at) + 1;
      const bytes = Buffer.byteLength(text.slice(lineStart, at));
      const d = byCode(diagnostics, "undecided-elsewhere")[0]!;
      expect(d.range.start).toEqual({ line: positionAt(text, at).line, character: bytes });
      expect(d.range.end.character).toBe(bytes + 3);
      expect(bytes).toBeGreaterThan(at - lineStart); // the emoji and CJK count 4 and 3 bytes
    } finally {
      await other.client.stop();
    }
  });

  it("gives a markdown file that is no spec doc nothing, and a file the config's types name its findings", async () => {
    const notes = await client.open(uriOf(join(root, "notes/meeting.md")), read("notes/meeting.md"));
    expect(notes.diagnostics).toEqual([]);
    const rfc = await client.open(uriOf(join(root, RFC)), read(RFC));
    expect(byCode(rfc.diagnostics, "drawbacks")).toHaveLength(1);
  });

  it("inserts a missing section where the profile's order puts it, with the template's prompt", async () => {
    const uri = uriOf(join(root, RFC));
    const text = read(RFC);
    const opened = client.published.filter((p) => p.uri === uri).at(-1)!;
    const drawbacks = byCode(opened.diagnostics, "drawbacks")[0]!;
    const actions = await client.request<CodeAction[]>("textDocument/codeAction", {
      textDocument: { uri },
      range: drawbacks.range,
      context: { diagnostics: [drawbacks] },
    });
    const add = actions.find((a) => a.title === "Add the section 'Drawbacks'")!;
    expect(add.kind).toBe("quickfix");
    const fixed = applyTextEdits(text, add.edit!.changes![uri]!);
    // RFC order: ... Reference-level explanation, Drawbacks, Rationale and alternatives ...
    expect(fixed).toContain("# Reference-level explanation\n\nA lazy import binds a namespace proxy.");
    const drawbacksAt = fixed.indexOf("# Drawbacks\n\n{{Why should we not do this?}}\n");
    expect(drawbacksAt).toBeGreaterThan(fixed.indexOf("# Reference-level explanation"));
    expect(drawbacksAt).toBeLessThan(fixed.indexOf("# Rationale and alternatives"));
    const after = await client.change(uri, 2, [{ text: fixed }]);
    expect(after.diagnostics.map((d) => (d.data as { id: string }).id)).not.toContain(
      (drawbacks.data as { id: string }).id,
    );
    expect(after.diagnostics.filter((d) => (d.message as string).includes("is missing"))).toEqual([]);
    // The prompt is now the writer's to fill in.
    expect(byCode(after.diagnostics, "template-placeholder")).toHaveLength(1);
  });

  it("adds a missing frontmatter key, and shows a placeholder's range", async () => {
    const uri = uriOf(join(root, KEP));
    const text = read(KEP).replace("status: provisional\n", "");
    const { diagnostics } = await client.change(uri, 3, [{ text }]);
    const status = byCode(diagnostics, "status")[0]!;
    const actions = await client.request<CodeAction[]>("textDocument/codeAction", {
      textDocument: { uri },
      range: status.range,
      context: { diagnostics: [status] },
    });
    const add = actions.find((a) => a.title === "Add 'status' to the frontmatter")!;
    const fixed = applyTextEdits(text, add.edit!.changes![uri]!);
    // The first value the profile allows, at the end of the frontmatter.
    expect(fixed.split("---")[1]).toMatch(/\nimplements: product\/restart-budget\nstatus: provisional\n$/);
    const after = await client.change(uri, 4, [{ text: fixed }]);
    expect(byCode(after.diagnostics, "status")).toEqual([]);
    kepText = fixed;

    const placeholder = byCode(after.diagnostics, "template-placeholder")[0]!;
    const show = (
      await client.request<CodeAction[]>("textDocument/codeAction", {
        textDocument: { uri },
        range: placeholder.range,
        context: { diagnostics: [placeholder] },
      })
    ).find((a) => a.command?.command === "specReview.showRange")!;
    await client.request("workspace/executeCommand", {
      command: show.command!.command,
      arguments: show.command!.arguments,
    });
    expect(client.shown.at(-1)).toEqual({ uri, selection: placeholder.range, takeFocus: true });
  });

  it("reports an invalid profile.yaml in that file", async () => {
    const dir = join(root, ".spec-review", "profiles", "runbook");
    mkdirSync(dir, { recursive: true });
    const yaml =
      "key: runbook\ntitle: Runbook\nradar:\n  - key: ops\n    title: Operations\nchecks:\n  - slug: steps\n    kind: required-sectoin\n    level: MUST\n    category: ops\n";
    writeFileSync(join(dir, "profile.yaml"), yaml);
    writeFileSync(join(dir, "template.md"), "---\ntype: runbook\n---\n# Steps\n");
    const { diagnostics } = await client.open(uriOf(join(dir, "profile.yaml")), yaml, "yaml");
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics[0]!.severity).toBe(1);
    expect(diagnostics[0]!.message).toMatch(/kind/);
    expect(diagnostics[0]!.range.start.line).toBe(7);
    const fixed = await client.change(uriOf(join(dir, "profile.yaml")), 2, [
      { text: yaml.replace("required-sectoin", "required-section\n    params: { section: Steps }") },
    ]);
    expect(fixed.diagnostics).toEqual([]);
    // Another tool's profile.yaml is none of ours.
    const other = await client.open(uriOf(join(root, "deploy", "profile.yaml")), "replicas: [", "yaml");
    expect(other.diagnostics).toEqual([]);
  });

  it("updates the docs that link to a bundle when it is renamed", async () => {
    const uri = uriOf(join(root, KEP));
    const before = client.published.filter((p) => p.uri === uri).at(-1)!;
    expect(byCode(before.diagnostics, "links-resolve")).toEqual([]);
    renameSync(join(root, "product/restart-budget"), join(root, "product/restart-budgets"));
    const next = client.diagnosticsWhere(uri, (p) => byCode(p.diagnostics, "links-resolve").length > 0);
    await client.notify("workspace/didChangeWatchedFiles", {
      changes: [
        { uri: uriOf(join(root, "product/restart-budget/prd.md")), type: 3 },
        { uri: uriOf(join(root, "product/restart-budgets/prd.md")), type: 1 },
      ],
    });
    const broken = byCode((await next).diagnostics, "links-resolve");
    expect(broken[0]!.message).toContain("product/restart-budget");
    expect(broken[0]!.range.start.line).toBe(positionAt(kepText, kepText.indexOf("implements:")).line);
  });

  it("shuts down and exits with 0", async () => {
    expect(await client.stop()).toBe(0);
  });
});
