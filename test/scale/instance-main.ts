/**
 * One hosted instance as its own process, for the kill -9 test (test/scale/takeover.test.ts):
 * the service graph on DATABASE_URL with a review worker of short lease, served on a free
 * port. Prints one JSON line, `{ url, worker }`, once listening. The caller is always the
 * test admin (sign-in is tested elsewhere).
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createApp, type HttpOptions } from "../../server/app.js";
import { localAuthenticator } from "../../server/auth/actor.js";
import { silentLogger } from "../../server/deps.js";
import { createServices } from "../../server/services.js";
import { ADMIN, BUILTIN_PROFILES } from "./instances.js";

const services = await createServices({
  mode: "hosted",
  database: process.env.DATABASE_URL!,
  secretKey: Buffer.from(process.env.SPEC_REVIEW_SECRET_KEY!, "base64"),
  logger: silentLogger,
  profilesDir: BUILTIN_PROFILES,
  serverVersion: "0.0.0-test",
  auth: localAuthenticator(ADMIN),
  worker: {
    heartbeatMs: Number(process.env.HEARTBEAT_MS ?? 200),
    leaseMs: Number(process.env.LEASE_MS ?? 1500),
    pollMs: 1000,
  },
});
const http: HttpOptions = { allowedHosts: ["127.0.0.1"] };
const app = createApp(services, http);
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => {
  http.port = (server.address() as AddressInfo).port;
  process.stdout.write(
    JSON.stringify({ url: `http://127.0.0.1:${http.port}`, worker: services.worker!.id }) + "\n",
  );
});
process.once("SIGTERM", () => {
  server.close();
  void services.close().then(() => process.exit(0));
});
