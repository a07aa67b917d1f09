/**
 * Instances of hosted spec-review on one test Postgres, for the scale tests: each its own
 * service graph (own pool, own listening connection, own caches and worker) in this
 * process, reached through its own app, as a load balancer would spread requests.
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { createApp } from "../../server/app.js";
import { localAuthenticator, type Actor } from "../../server/auth/actor.js";
import { silentLogger } from "../../server/deps.js";
import type { WorkerOptions } from "../../server/jobs/worker.js";
import { createServices, type Services } from "../../server/services.js";

export const BUILTIN_PROFILES = resolve(import.meta.dirname, "../../profiles");
export const ADMIN: Actor = { id: "ada", name: "Ada", kind: "user", role: "admin" };

export interface Instance {
  name: string;
  services: Services;
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startInstance(
  name: string,
  url: string,
  opts: { secretKey: Uint8Array; worker?: WorkerOptions },
): Promise<Instance> {
  const services = await createServices({
    mode: "hosted",
    database: url,
    secretKey: opts.secretKey,
    logger: silentLogger,
    profilesDir: BUILTIN_PROFILES,
    serverVersion: "0.0.0-test",
    worker: opts.worker,
    auth: localAuthenticator(ADMIN),
  });
  const app = createApp(services);
  return {
    name,
    services,
    req: (method, path, body, headers = {}) => {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        if (typeof body === "string" || body instanceof FormData) init.body = body;
        else {
          init.body = JSON.stringify(body);
          (init.headers as Record<string, string>)["content-type"] = "application/json";
        }
      }
      return Promise.resolve(app.request((path.startsWith("/api/") ? "" : "/api/v1") + path, init));
    },
    close: () => services.close(),
  };
}

export const newSecretKey = () => randomBytes(32);
