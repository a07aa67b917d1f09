/**
 * A real LSP client for the tests and bench/lsp.ts: `spec-review lsp` started as a child
 * process (from source, through tsx, or from dist/), spoken to over its stdin and stdout
 * with vscode-languageserver-protocol's JSON-RPC connection. It answers what the server
 * asks of an editor (workspace/configuration, window/showDocument, registrations) and
 * collects published diagnostics.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type ShowDocumentParams,
} from "vscode-languageserver-protocol/node";

export const ROOT = resolve(import.meta.dirname, "../..");

/** A copy of fixtures/lsp/workspace in a temporary folder, a repository (it has `.git`). */
export function workspaceCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "spec-review-lsp-"));
  cpSync(join(ROOT, "fixtures", "lsp", "workspace"), dir, { recursive: true });
  mkdirSync(join(dir, ".git"));
  return dir;
}

export const uriOf = (path: string) => pathToFileURL(path).href;

export interface Published {
  uri: string;
  version?: number;
  diagnostics: Diagnostic[];
}

export interface StartOptions {
  root: string;
  /** `specReview` settings answered to workspace/configuration. */
  settings?: Record<string, unknown>;
  /** Position encodings offered (LSP 3.17). */
  positionEncodings?: string[];
  env?: Record<string, string>;
  /** Run dist/cli/main.js instead of the sources. */
  built?: boolean;
}

export class LspClient {
  readonly published: Published[] = [];
  readonly shown: ShowDocumentParams[] = [];
  readonly messages: { type: number; message: string }[] = [];
  settings: Record<string, unknown>;
  private waiters: { test: (p: Published) => boolean; resolve: (p: Published) => void }[] = [];
  stderr = "";

  private constructor(
    readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
    settings: Record<string, unknown>,
  ) {
    this.settings = settings;
  }

  static async start(opts: StartOptions): Promise<{ client: LspClient; init: InitializeResult }> {
    const args = opts.built
      ? [join(ROOT, "dist", "cli", "main.js"), "lsp", "--stdio"]
      : ["--import", import.meta.resolve("tsx"), join(ROOT, "cli", "main.ts"), "lsp", "--stdio"];
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    if (!opts.env?.SPEC_REVIEW_URL) delete env.SPEC_REVIEW_URL;
    if (!opts.env?.SPEC_REVIEW_TOKEN) delete env.SPEC_REVIEW_TOKEN;
    const child = spawn(process.execPath, args, { cwd: opts.root, env, stdio: ["pipe", "pipe", "pipe"] });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const client = new LspClient(child, connection, opts.settings ?? {});
    child.stderr.on("data", (d: Buffer) => (client.stderr += d.toString()));
    connection.onNotification("textDocument/publishDiagnostics", (p: Published) => {
      client.published.push(p);
      client.waiters = client.waiters.filter((w) => {
        if (!w.test(p)) return true;
        w.resolve(p);
        return false;
      });
    });
    connection.onNotification("window/showMessage", (p: { type: number; message: string }) => {
      client.messages.push(p);
    });
    connection.onNotification("window/logMessage", () => undefined);
    connection.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) =>
      p.items.map((i) => (i.section === "specReview" ? client.settings : null)),
    );
    connection.onRequest("window/showDocument", (p: ShowDocumentParams) => {
      client.shown.push(p);
      return { success: true };
    });
    connection.onRequest("window/showMessageRequest", (p: { type: number; message: string }) => {
      client.messages.push({ type: p.type, message: p.message });
      return null;
    });
    connection.onRequest("client/registerCapability", () => null);
    connection.listen();
    const capabilities: ClientCapabilities = {
      general: opts.positionEncodings ? { positionEncodings: opts.positionEncodings } : {},
      workspace: {
        configuration: true,
        workspaceFolders: true,
        didChangeWatchedFiles: { dynamicRegistration: true },
        fileOperations: { didRename: true, didDelete: true },
      },
      window: { showDocument: { support: true } },
      textDocument: {
        publishDiagnostics: { versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
        codeAction: { dataSupport: true },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        hover: { contentFormat: ["markdown", "plaintext"] },
      },
    };
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) =>
        reject(new Error(`spec-review lsp exited with ${code} before it answered: ${client.stderr}`)),
      ),
    );
    exited.catch(() => undefined);
    const init = (await Promise.race([
      connection.sendRequest("initialize", {
        processId: process.pid,
        rootUri: uriOf(opts.root),
        workspaceFolders: [{ uri: uriOf(opts.root), name: "specs" }],
        capabilities,
      }),
      exited,
    ])) as InitializeResult;
    await connection.sendNotification("initialized", {});
    return { client, init };
  }

  /** The next diagnostics published for a URI (and version, when given). */
  diagnostics(uri: string, version?: number): Promise<Published> {
    return new Promise((resolve) =>
      this.waiters.push({
        test: (p) => p.uri === uri && (version === undefined || p.version === version),
        resolve,
      }),
    );
  }

  /** The next diagnostics for a URI that pass `test`. */
  diagnosticsWhere(uri: string, test: (p: Published) => boolean): Promise<Published> {
    return new Promise((resolve) => this.waiters.push({ test: (p) => p.uri === uri && test(p), resolve }));
  }

  async open(uri: string, text: string, languageId = "markdown", version = 1): Promise<Published> {
    const next = this.diagnostics(uri, version);
    await this.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId, version, text },
    });
    return next;
  }

  async change(
    uri: string,
    version: number,
    changes: { range?: { start: Position; end: Position }; text: string }[],
  ): Promise<Published> {
    const next = this.diagnostics(uri, version);
    await this.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: changes,
    });
    return next;
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest(method, params);
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.connection.sendNotification(method, params);
  }

  /** shutdown, exit, and the process's exit code. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once("exit", (code) => resolve(code)));
    try {
      await this.connection.sendRequest("shutdown");
      await this.connection.sendNotification("exit");
    } catch {
      this.child.kill();
    }
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}

interface Position {
  line: number;
  character: number;
}

/** The line and UTF-16 character of a string index of `text`. */
export function positionAt(text: string, index: number): Position {
  const before = text.slice(0, index);
  const line = before.split("\n").length - 1;
  return { line, character: index - (before.lastIndexOf("\n") + 1) };
}

/** Apply LSP text edits (UTF-16 positions) to a text. */
export function applyTextEdits(
  text: string,
  edits: { range: { start: Position; end: Position }; newText: string }[],
): string {
  const offset = (p: Position) => {
    let i = 0;
    for (let l = 0; l < p.line; l++) i = text.indexOf("\n", i) + 1;
    return i + p.character;
  };
  const sorted = edits
    .map((e) => ({ s: offset(e.range.start), e: offset(e.range.end), t: e.newText }))
    .sort((a, b) => b.s - a.s);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.s) + e.t + out.slice(e.e);
  return out;
}
