/**
 * A process that starts hosted spec-review (`startServer`, what `serve --hosted` runs: the
 * migrations, the seed, the first admin invite, then the listener) on the database it is
 * told, as often as it is told, for test/scale/start-seed.test.ts: its modules are loaded
 * once, so that five such processes start together on a new database every round without
 * paying for a cold start each time.
 *
 * stdin, one JSON object a line: `{"start": "<postgres url>"}` answers `{"url", "startup"}`
 * (the start-up log record) or `{"error"}`; `{"close": true}` answers `{"closed": true}`.
 * Needs SPEC_REVIEW_SECRET_KEY.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startServer, type RunningServer } from "../../server/start.js";

const dataDir = mkdtempSync(join(tmpdir(), "sr-start-main-"));
let server: RunningServer | undefined;
const say = (o: unknown) => process.stdout.write(JSON.stringify(o) + "\n");

async function start(url: string): Promise<void> {
  const records: Array<Record<string, unknown>> = [];
  try {
    server = await startServer({
      mode: "hosted",
      port: 0,
      host: "127.0.0.1",
      dataDir,
      watch: false,
      databaseUrl: url,
      logFormat: "json",
      logWrite: (line) => records.push(JSON.parse(line) as Record<string, unknown>),
      prepareDataDir: () => {},
    });
    say({ url: server.url, startup: records.find((r) => r.msg === server!.startLine) });
  } catch (err) {
    say({ error: err instanceof Error ? err.message : String(err) });
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line) as { start?: string; close?: boolean };
  if (m.start) await start(m.start);
  else if (m.close) {
    await server?.close(0);
    server = undefined;
    say({ closed: true });
  }
}
