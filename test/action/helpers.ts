/** Shared by the Action's tests: a GitHub client nock can see, and the recorded payloads. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getOctokit } from "@actions/github";
import type { GitHubClient } from "../../action/github.js";

// nock intercepts fetch through @mswjs/interceptors, which calls Promise.withResolvers
// (Node 22). The Action itself runs on node20 and never calls it; only the tests need it.
if (!("withResolvers" in Promise)) {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURES = join(ROOT, "fixtures", "action");
export const API = "https://api.github.test";
export const REPO = "/repos/acme/product-specs";
export const HEAD_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";

export function fixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, "github", name), "utf8")) as T;
}

/**
 * The client the Action makes (@actions/github's getOctokit, no retries, no throttling),
 * on the global fetch so nock intercepts it (the default goes through undici's own).
 */
export function client(): GitHubClient {
  return getOctokit("test-token", {
    baseUrl: API,
    request: { fetch: (url: string, init: RequestInit) => fetch(url, init) },
  });
}

/** The outputs a step wrote to its GITHUB_OUTPUT file (`name<<delimiter` blocks). */
export function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join("\n");
  }
  return out;
}
