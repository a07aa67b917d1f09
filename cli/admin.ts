/**
 * `spec-review admin`: the administration the HTTP contract leaves out, on the hosted
 * service's database (the same settings as `serve --hosted`: DATABASE_URL, else the
 * embedded database in --data-dir). An embedded (PGlite) database is single-process:
 * these commands run while the service is stopped, and refuse when it is in use.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "./args.js";

export const ADMIN_USAGE = `Usage: spec-review admin <command> [options]

Commands:
  invite --role <admin|member|viewer>   print a new single-use invite link
  users                                 list the people of the workspace
  set-role <email> <admin|member|viewer>
  remove <email>                        offboard a person: sign-in refused, every
                                        session and API token ends at once
  github-login <email> <login>          link a GitHub login to a person (the App places
                                        their comments and approvals by it)
  github-login <email> --clear          unlink it

Options:
  --data-dir <dir>     the embedded database of the hosted service (when DATABASE_URL is not set)
  --public-url <url>   the address people reach the service at, for links (default: PUBLIC_URL,
                       else http://localhost:8787)
  -h, --help           show this help

Environment:
  DATABASE_URL         postgres://… the hosted service's Postgres database
  PUBLIC_URL           as --public-url

With an embedded database, stop the service first: only one process can open it.
`;

export interface AdminIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: AdminIo = {
  out: (l) => process.stdout.write(l + "\n"),
  err: (l) => process.stderr.write(l + "\n"),
  env: process.env,
};

/** The database URL to open: DATABASE_URL, else the PGlite folder of --data-dir (refused while in use). */
export function adminDatabase(dataDir: string | undefined, env: NodeJS.ProcessEnv): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  if (!dataDir) throw new UsageError("say where the database is: set DATABASE_URL, or pass --data-dir");
  const db = join(resolve(dataDir), "db");
  if (!existsSync(join(db, "PG_VERSION"))) throw new UsageError(`no database in ${dataDir} (expected ${db})`);
  // PGlite keeps postmaster.pid while a process has the database open, and removes it on a clean close.
  if (existsSync(join(db, "postmaster.pid")))
    throw new UsageError(
      `the embedded database in ${dataDir} is in use (a running spec-review serve holds it; PGlite is single-process). ` +
        "Stop the service and run this again. If no service runs, the last one did not stop cleanly: start and stop it once.",
    );
  return db;
}

export async function adminCommand(argv: string[], io: AdminIo = defaultIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        role: { type: "string" },
        clear: { type: "boolean" },
        "data-dir": { type: "string" },
        "public-url": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    io.err(`spec-review admin: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || command === undefined) {
    io.out(ADMIN_USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const expected: Record<string, number> = {
    invite: 0,
    users: 0,
    "set-role": 2,
    remove: 1,
    "github-login": values.clear ? 1 : 2,
  };
  if (!(command in expected)) {
    io.err(`spec-review admin: unknown command '${command}' (see spec-review admin --help)`);
    return 2;
  }
  if (args.length !== expected[command]) {
    io.err(
      `spec-review admin ${command}: takes ${expected[command]} argument(s) (see spec-review admin --help)`,
    );
    return 2;
  }
  let url: string;
  try {
    if (command === "invite" && !values.role)
      throw new UsageError("invite needs --role admin, member or viewer");
    url = adminDatabase(values["data-dir"], io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`spec-review admin: ${err.message}`);
    return 2;
  }

  const { openDatabase } = await import("../server/db/index.js");
  const { Accounts } = await import("../server/auth/accounts.js");
  const { ApiError } = await import("../server/errors.js");
  const { DEFAULT_PUBLIC_URL } = await import("../server/public-url.js");
  const database = await openDatabase(url);
  try {
    const accounts = new Accounts(
      database.db,
      () => new Date(),
      values["public-url"] ?? io.env.PUBLIC_URL ?? DEFAULT_PUBLIC_URL,
    );
    switch (command) {
      case "invite": {
        const invite = await accounts.createInvite(values.role!, "spec-review admin");
        io.out(`${invite.role} invite: ${invite.url}`);
        io.out(`single use; expires ${invite.expires_at}`);
        break;
      }
      case "users": {
        for (const p of await accounts.people({ includeRemoved: true }))
          io.out(
            [
              p.email,
              p.role,
              p.name,
              p.removed_at ? `removed ${p.removed_at}` : "",
              p.github_login ? `github:${p.github_login}` : "",
            ]
              .join("\t")
              .trimEnd(),
          );
        break;
      }
      case "set-role": {
        const p = await accounts.setRole(args[0]!, args[1]!);
        io.out(`${p.email} is now ${p.role}`);
        break;
      }
      case "remove": {
        await accounts.remove(args[0]!);
        io.out(`${args[0]} removed: signed out everywhere, API tokens revoked`);
        break;
      }
      case "github-login": {
        const { GitHubLink, githubOAuthFromEnv } = await import("../server/auth/github-link.js");
        const id = await accounts.idOf(args[0]!);
        await new GitHubLink(database.db, () => new Date(), githubOAuthFromEnv(io.env)).setLogin(
          id,
          values.clear ? null : args[1]!,
        );
        const p = await accounts.person(id);
        io.out(
          p.github_login
            ? `${p.email} is @${p.github_login} on GitHub`
            : `${p.email} has no GitHub login linked`,
        );
        break;
      }
    }
    return 0;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    io.err(`spec-review admin ${command}: ${err.message}`);
    return 1;
  } finally {
    await database.close();
  }
}
