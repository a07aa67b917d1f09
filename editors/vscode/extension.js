// The VS Code client of `spec-review lsp`: it finds the program, starts the language
// server over stdio for the markdown files (and profile files) of the workspace, and
// leaves everything else to the server. Plain CommonJS: nothing to build before packaging.
"use strict";
const { existsSync } = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

/** @type {import("vscode-languageclient/node").LanguageClient | undefined} */
let client;

/**
 * The program to start: the `specReview.path` setting, else the first workspace folder
 * holding `node_modules/.bin/spec-review`, else `spec-review` on PATH.
 * @returns {string}
 */
function serverProgram() {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const configured = vscode.workspace.getConfiguration("specReview").get("path", "").trim();
  if (configured) {
    if (path.isAbsolute(configured) || folders.length === 0) return configured;
    return path.resolve(folders[0].uri.fsPath, configured);
  }
  const bin = process.platform === "win32" ? "spec-review.cmd" : "spec-review";
  for (const folder of folders) {
    const local = path.join(folder.uri.fsPath, "node_modules", ".bin", bin);
    if (existsSync(local)) return local;
  }
  return bin;
}

async function start(context) {
  const command = serverProgram();
  // `.cmd` shims run through the shell on Windows; TransportKind.stdio adds `--stdio`.
  const run = {
    command,
    args: ["lsp"],
    transport: TransportKind.stdio,
    options: { shell: /\.cmd$/i.test(command) },
  };
  client = new LanguageClient(
    "specReview",
    "spec-review",
    { run, debug: run },
    {
      documentSelector: [
        { scheme: "file", language: "markdown" },
        { scheme: "file", pattern: "**/profile.yaml" },
      ],
      // The server asks for the `specReview` settings, and registers its own file watchers
      // (renames and deletes change what other docs link to).
      synchronize: { configurationSection: "specReview" },
    },
  );
  try {
    await client.start();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(
      `spec-review: could not start '${command} lsp' (${message}). Install spec-review in the workspace (npm i -D spec-review) or set specReview.path.`,
    );
  }
  context.subscriptions.push({ dispose: () => client?.stop() });
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("specReview.restartServer", async () => {
      if (client) await client.stop().catch(() => undefined);
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration("specReview.path")) return;
      if (client) await client.stop().catch(() => undefined);
      await start(context);
    }),
  );
  await start(context);
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
