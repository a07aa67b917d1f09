/**
 * `spec-review lsp`: the language server (LSP 3.17, over stdio) for the markdown spec
 * docs of the open workspace, with the repository's configuration and profiles and no
 * database. docs/editors.md says how each editor starts it.
 *
 * A change is linted as soon as the event loop is free: no debounce timer. When edits
 * arrive faster than lints finish, the ones waiting are folded into one lint of the
 * latest text (bench/lsp.ts measures didChange to publishDiagnostics).
 */
import { readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createConnection,
  DidChangeWatchedFilesNotification,
  TextDocumentSyncKind,
  TextDocuments,
  type Connection,
  type InitializeResult,
  type MarkupContent,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { loadProfile, parseProfile } from "../core/profile/load.js";
import { parseMarkdown } from "../core/markdown/document.js";
import { folderProfileSource, layersParentResolver } from "../node/profiles.js";
import { COMMANDS, codeActions, executeCommand } from "./actions.js";
import { findingDiagnostics, profileDiagnostics } from "./diagnostics.js";
import { completion, definition, hover, linkedBundleAt, symbols, type OpenDoc } from "./features.js";
import { serviceClient, type ServiceDoc } from "./service.js";
import { chooseEncoding, type Encoding } from "./positions.js";
import { settingsFrom, uriPath, Workspace, type LintedDoc } from "./workspace.js";

export interface LspOptions {
  /** The connection; default: over this process's stdin and stdout. */
  connection?: Connection;
  env?: Record<string, string | undefined>;
}

/** Is this file named like a profile (`<profiles folder>/<key>/profile.yaml`)? */
const isProfileFile = (path: string) => basename(path) === "profile.yaml";

const RESULT_WORDS: Record<string, string> = {
  build_ready: "Build Ready",
  not_build_ready: "Not Build Ready",
  stale: "stale",
};

function serviceVerdict(v: NonNullable<ServiceDoc["verdict"]>): string {
  return `${RESULT_WORDS[v.result] ?? v.result} (${v.kind ?? "lint"}): ${v.must} MUST, ${v.should} SHOULD, ${v.info} INFO`;
}

export function startLspServer(options: LspOptions = {}): Connection {
  const env = options.env ?? process.env;
  const connection = options.connection ?? createConnection(process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  const ws = new Workspace();
  ws.settings = settingsFrom(undefined, env);
  const linted = new Map<string, LintedDoc>();
  /** Profile files that have diagnostics published, so they can be cleared. */
  const profileUris = new Set<string>();
  let enc: Encoding = "utf-16";
  let canConfigure = false;
  let canWatch = false;
  let folderEvents = false;

  const pending = new Set<string>();
  let flushing = false;
  const schedule = (uri: string) => {
    pending.add(uri);
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
  const flush = () => {
    flushing = false;
    const uris = [...pending];
    pending.clear();
    for (const uri of uris) {
      const doc = documents.get(uri);
      if (doc) publish(doc);
    }
    publishProfileErrors();
  };

  const publish = (doc: TextDocument) => {
    const path = uriPath(doc.uri);
    if (path && isProfileFile(path)) {
      // Only a profile of one of the layers: another tool's profile.yaml is none of ours.
      const layerDir = dirname(dirname(path));
      if (!ws.layers(dirname(layerDir)).some((l) => resolve(l.dir) === layerDir)) {
        void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: [] });
        return;
      }
      void connection.sendDiagnostics({
        uri: doc.uri,
        version: doc.version,
        diagnostics: profileBufferDiagnostics(path, doc.getText()),
      });
      profileUris.add(doc.uri);
      return;
    }
    let result: LintedDoc | undefined;
    try {
      result = ws.lint(doc.uri, doc.getText(), doc.version);
    } catch (err) {
      connection.console.error(`spec-review: lint of ${doc.uri} failed: ${String(err)}`);
    }
    if (result) linted.set(doc.uri, result);
    else linted.delete(doc.uri);
    void connection.sendDiagnostics({
      uri: doc.uri,
      version: doc.version,
      diagnostics: result ? findingDiagnostics(result, enc, ws.settings) : [],
    });
  };

  /** The errors of an open profile file, as its buffer reads (its parent from the layers below). */
  const profileBufferDiagnostics = (path: string, text: string) => {
    const keyDir = dirname(path);
    const key = basename(keyDir);
    const layers = ws.layers(dirname(dirname(keyDir)));
    const disk = folderProfileSource(dirname(keyDir));
    const source = {
      keys: () => [key],
      read: (k: string, file: string) => (k === key && file === "profile.yaml" ? text : disk.read(k, file)),
    };
    const parent = layersParentResolver(layers);
    const r = loadProfile(source, key, (yaml, o) => parseProfile(yaml, { ...o, parent, file: path }));
    return r.ok
      ? []
      : profileDiagnostics(
          r.errors.filter((e) => !e.file || e.file === path || e.file === `${key}/profile.yaml`),
          text,
          enc,
        );
  };

  /** Profiles on disk that do not load: their files get diagnostics (the open ones have their own). */
  const publishProfileErrors = () => {
    const byFile = new Map<string, { line: number; column: number; message: string; path: string }[]>();
    for (const loaded of ws.loadedProfiles())
      for (const e of loaded.errors) {
        const list = byFile.get(e.file) ?? [];
        if (!list.some((x) => x.line === e.line && x.message === e.message)) list.push(e);
        byFile.set(e.file, list);
      }
    const seen = new Set<string>();
    for (const [file, errors] of byFile) {
      const uri = pathToFileURL(file).href;
      seen.add(uri);
      if (documents.get(uri)) continue;
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        text = "";
      }
      void connection.sendDiagnostics({ uri, diagnostics: profileDiagnostics(errors, text, enc) });
      profileUris.add(uri);
    }
    for (const uri of profileUris)
      if (!seen.has(uri) && !documents.get(uri)) {
        void connection.sendDiagnostics({ uri, diagnostics: [] });
        profileUris.delete(uri);
      }
  };

  const relintAll = () => {
    for (const doc of documents.all()) schedule(doc.uri);
  };

  /** What features read of a buffer: its lint when it is a spec doc, else its parse. */
  const openDoc = (uri: string): OpenDoc | undefined => {
    const doc = documents.get(uri);
    const path = uriPath(uri);
    if (!doc || !path) return undefined;
    const l = linted.get(uri);
    if (l && l.version === doc.version) return { uri, path, doc: l.doc, linted: l };
    // A lint still waiting: do it now, so the answer is about the text the client sees.
    if (pending.has(uri)) {
      pending.delete(uri);
      publish(doc);
      const again = linted.get(uri);
      if (again) return { uri, path, doc: again.doc, linted: again };
    }
    return { uri, path, doc: parseMarkdown(doc.getText()) };
  };

  const pullSettings = async () => {
    if (!canConfigure) return;
    const raw: unknown = await connection.workspace.getConfiguration({ section: "specReview" });
    ws.settings = settingsFrom(raw, env);
    ws.invalidate("all");
    relintAll();
  };

  connection.onInitialize((params): InitializeResult => {
    enc = chooseEncoding(params.capabilities.general?.positionEncodings);
    canConfigure = params.capabilities.workspace?.configuration === true;
    canWatch = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    folderEvents = params.capabilities.workspace?.workspaceFolders === true;
    const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    ws.roots = folders.map(uriPath).filter((p): p is string => p !== undefined);
    const fileOps = { filters: [{ scheme: "file", pattern: { glob: "**/*" } }] };
    return {
      capabilities: {
        positionEncoding: enc,
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        codeActionProvider: { codeActionKinds: ["quickfix"] },
        hoverProvider: true,
        definitionProvider: true,
        documentSymbolProvider: true,
        completionProvider: { triggerCharacters: [":", " ", "/", "-"] },
        executeCommandProvider: { commands: Object.values(COMMANDS) },
        workspace: {
          workspaceFolders: { supported: true, changeNotifications: true },
          fileOperations: { didCreate: fileOps, didRename: fileOps, didDelete: fileOps },
        },
      },
      serverInfo: { name: "spec-review" },
    };
  });

  connection.onInitialized(() => {
    if (folderEvents)
      connection.workspace.onDidChangeWorkspaceFolders((e) => {
        const removed = new Set(e.removed.map((f) => uriPath(f.uri)));
        ws.roots = [
          ...ws.roots.filter((r) => !removed.has(r)),
          ...e.added.map((f) => uriPath(f.uri)).filter((p): p is string => p !== undefined),
        ];
        ws.invalidate("files");
        relintAll();
      });
    if (canWatch)
      void connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: "**/*" }],
      });
    if (canConfigure) void pullSettings().catch(() => undefined);
  });

  connection.onDidChangeConfiguration(() => {
    if (canConfigure) void pullSettings().catch(() => undefined);
    else relintAll();
  });

  connection.onDidChangeWatchedFiles((params) => {
    // What no walker reads (dependencies being installed, git's own files) changes nothing here.
    const changes = params.changes.filter((c) => !/[\\/](?:node_modules|\.git)[\\/]/.test(c.uri));
    if (changes.length === 0) return;
    const config = changes.some((c) => {
      const p = uriPath(c.uri) ?? "";
      return /[\\/]\.spec-review[\\/]/.test(p) || isProfileFile(p) || basename(p) === "template.md";
    });
    // Any file may add or remove a bundle (created, deleted, renamed) or change what other
    // docs read of it (a saved doc's type, its trace IDs): forget the listings.
    ws.invalidate(config ? "all" : "files");
    relintAll();
  });
  connection.workspace.onDidRenameFiles(() => {
    ws.invalidate("files");
    relintAll();
  });
  connection.workspace.onDidDeleteFiles(() => {
    ws.invalidate("files");
    relintAll();
  });
  connection.workspace.onDidCreateFiles(() => {
    ws.invalidate("files");
    relintAll();
  });

  documents.onDidChangeContent((e) => schedule(e.document.uri));
  documents.onDidClose((e) => {
    linted.delete(e.document.uri);
    pending.delete(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  connection.onCodeAction((params) => {
    const open = openDoc(params.textDocument.uri);
    if (!open?.linted) return [];
    return codeActions(open.linted, params.range, params.context.diagnostics, enc, ws.settings);
  });
  connection.onExecuteCommand((params) =>
    executeCommand(
      {
        showDocument: (p) => connection.window.showDocument(p),
        showMessage: (kind, message) =>
          kind === "error"
            ? connection.window.showErrorMessage(message)
            : kind === "warning"
              ? connection.window.showWarningMessage(message)
              : connection.window.showInformationMessage(message),
        linted: (uri) => openDoc(uri)?.linted,
        settings: ws.settings,
      },
      params.command,
      params.arguments ?? [],
    ),
  );
  connection.onHover(async (params) => {
    const open = openDoc(params.textDocument.uri);
    if (!open) return null;
    const answer = hover(ws, open, params.position, enc);
    // A linked bundle's verdict on the service, when one is configured: the full review's.
    const linked = linkedBundleAt(ws, open, params.position, enc);
    const client = linked && serviceClient(ws.settings);
    if (!answer || !linked || !client) return answer;
    let line: string;
    try {
      const doc = await client.findDoc(linked.slug, linked.path);
      line = doc?.verdict
        ? `On ${client.url}: ${serviceVerdict(doc.verdict)}`
        : `On ${client.url}: ${doc ? "no verdict yet" : "not found"}`;
    } catch (err) {
      line = `On ${client.url}: ${err instanceof Error ? err.message : String(err)}`;
    }
    const contents = answer.contents as MarkupContent;
    return { contents: { kind: contents.kind, value: `${contents.value}\n\n${line}` } };
  });
  connection.onDefinition((params) => {
    const open = openDoc(params.textDocument.uri);
    return open ? definition(ws, open, params.position, enc) : null;
  });
  connection.onCompletion((params) => {
    const open = openDoc(params.textDocument.uri);
    return open ? completion(ws, open, params.position, enc) : [];
  });
  connection.onDocumentSymbol((params) => {
    const open = openDoc(params.textDocument.uri);
    return open ? symbols(open.doc, enc) : [];
  });

  documents.listen(connection);
  connection.listen();
  return connection;
}
