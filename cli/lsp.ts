/**
 * `spec-review lsp`: the language server for editors, over stdio (docs/editors.md).
 * stdin and stdout carry LSP messages; nothing else is written to stdout.
 */
import { strictArgs } from "./args.js";

export const LSP_USAGE = `Usage: spec-review lsp [--stdio]

Runs spec-review's language server over stdio, for the markdown spec docs of the folders
an editor opens: the lint's findings as diagnostics, fixes as code actions, hover,
completion in the frontmatter, go to definition and document symbols. It reads the
repository's .spec-review/config.yaml and profiles, and needs no database or service.
Editors start it themselves (docs/editors.md: VS Code, Neovim, Helix, JetBrains IDEs).

Options:
  --stdio             talk over stdin and stdout (the default, and the only transport)
  -h, --help          show this help

Settings (workspace/configuration, section "specReview"): serviceUrl, token, profiles.
Environment:
  SPEC_REVIEW_URL     the service, when the editor sets no serviceUrl: check pages and
                      "Request a waiver…" open there
  SPEC_REVIEW_TOKEN   its API token, when the editor sets none
`;

export async function lspCommand(argv: string[]): Promise<number> {
  const { values } = strictArgs(argv, {
    stdio: { type: "boolean" },
    // Editors may name their process; the server then exits when it is gone.
    clientProcessId: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    process.stdout.write(LSP_USAGE);
    return 0;
  }
  const { startLspServer } = await import("../lsp/server.js");
  const connection = startLspServer();
  await new Promise<void>((resolve) => connection.onExit(() => resolve()));
  return 0;
}
