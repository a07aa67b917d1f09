#!/usr/bin/env node
/**
 * spec-review command line. Each command is loaded lazily so that `lint` never
 * pays for the database or the HTTP stack.
 */
const USAGE = `spec-review <command> [options]

Commands:
  serve [folder]   serve a folder of spec bundles over HTTP (see: spec-review serve --help)
  lint [paths...]  lint bundles without a server (see: spec-review lint --help)
  profile infer    learn a profile from a team's accepted docs (see: spec-review profile --help)
  admin <command>  invites, people and roles of a hosted service (see: spec-review admin --help)
  trace [paths...] trace matrices and gaps without a server (see: spec-review trace --help)
  mcp [folder]     the MCP server for coding agents, over stdio (see: spec-review mcp --help)
  handoff <doc>    write a bundle's build packet for a coding agent (see: spec-review handoff --help)
  app              the GitHub App and the HTTP API in one process (see: spec-review app --help)
  lsp              the language server for editors, over stdio (see: spec-review lsp --help)

Options:
  -h, --help       show this help
  -v, --version    print the version
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return (await import("./serve.js")).serveCommand(rest);
    case "lint":
      return (await import("./lint.js")).lintCommand(rest);
    case "profile":
      return (await import("./profile.js")).profileCommand(rest);
    case "admin":
      return (await import("./admin.js")).adminCommand(rest);
    case "trace":
      return (await import("./trace.js")).traceCommand(rest);
    case "mcp":
      return (await import("./mcp.js")).mcpCommand(rest);
    case "handoff":
      return (await import("./handoff.js")).handoffCommand(rest);
    case "app":
      return (await import("./app.js")).appCommand(rest);
    case "lsp":
      return (await import("./lsp.js")).lspCommand(rest);
    case "-v":
    case "--version": {
      const { packageVersion } = await import("./version.js");
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    case undefined:
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`spec-review: unknown command '${command}' (try --help)\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`spec-review: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
