/**
 * Local mode is one person's service with no sign-in, so it listens on loopback only,
 * unless the operator says `--allow-remote`: then a random API token, printed at start,
 * guards every request (middleware/remote-token.ts).
 */
import { isLoopbackHost } from "./loopback.js";
import { newToken } from "./secrets.js";

export class RemoteRefused extends Error {
  constructor(host: string) {
    super(
      `local mode has no sign-in, so it listens on loopback addresses only; ${host} is reachable from other machines. ` +
        "Use --host 127.0.0.1, or --allow-remote (every request then needs the API token printed at start), or --hosted for accounts",
    );
    this.name = "RemoteRefused";
  }
}

/** The token local mode on `host` needs (undefined on loopback); throws when the host is remote and not allowed. */
export function localApiToken(
  mode: "local" | "hosted",
  host: string,
  allowRemote: boolean,
): string | undefined {
  if (mode !== "local" || isLoopbackHost(host)) return undefined;
  if (!allowRemote) throw new RemoteRefused(host);
  return newToken("api");
}
