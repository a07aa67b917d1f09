/**
 * Issue 9, "Bounded bodies": a body is held to its limit while it is read, chunked or not,
 * answered 413 as soon as it passes it, and never buffered past it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { request, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import type { BundleList } from "../../helpers/types.js";
import { JSON_BODY_LIMIT } from "../../../server/middleware/body-limit.js";

const DEMO = resolve(import.meta.dirname, "../../../fixtures/demo");
const MB = 1024 * 1024;

interface Upload {
  status: number;
  body: string;
  /** Bytes the client had written when the answer came. */
  sentAtAnswer: number;
  /** Bytes written in all. */
  sent: number;
}

/**
 * Streams `total` bytes as a chunked body (no Content-Length), 64 KiB at a time, and stops
 * writing once the answer has come or the connection is closed.
 */
function chunkedUpload(
  port: number,
  method: string,
  path: string,
  total: number,
  headers: Record<string, string> = {},
  head = "",
): Promise<Upload> {
  return new Promise((resolvePromise, reject) => {
    let sent = 0;
    let answered: Upload | undefined;
    let stopped = false;
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        answered = { status: res.statusCode!, body, sentAtAnswer: sent, sent };
        stopped = true;
        req.destroy();
        resolvePromise(answered);
      });
    });
    req.on("error", (err) => {
      stopped = true;
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, "a");
    if (head) {
      req.write(head);
      sent += Buffer.byteLength(head);
    }
    const pump = () => {
      while (!stopped && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once("drain", pump);
      }
      if (!stopped) req.end();
    };
    pump();
  });
}

describe("bounded bodies on a real listener", () => {
  let t: TestApp;
  let server: ReturnType<typeof serve>;
  let port: number;
  let docId: string;
  let base: string;

  beforeAll(async () => {
    t = await makeTestApp({ fixture: DEMO });
    const settings = await json<Record<string, unknown>>(t.req("GET", "/admin/settings"));
    const put = await t.req("PUT", "/admin/settings", { ...settings, max_file_mb: 1, max_bundle_mb: 2 });
    expect(put.status).toBe(200);
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const doc = list.items.find((b) => b.slug === "checkout")!.docs[0]!;
    docId = doc.id;
    base = doc.current_version.id;
    server = await new Promise((ok) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" }, () => ok(s));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    (server as HttpServer).closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    await t.close();
  });

  it("cuts a chunked file upload over max_file_mb with 413 file_too_large, and writes nothing", async () => {
    const before = readFileSync(join(t.root, "checkout/prd.md"), "utf8");
    const heapBefore = process.memoryUsage().arrayBuffers;
    const res = await chunkedUpload(
      port,
      "PUT",
      `/api/v1/docs/${docId}/files/content?path=prd.md&base_version=${base}`,
      512 * MB,
      { "content-type": "application/octet-stream" },
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "file_too_large", status: 413 });
    // The answer came long before the 512 MB were sent: the server stopped reading at the limit.
    expect(res.sentAtAnswer).toBeLessThan(100 * MB);
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(100 * MB);
    expect(readFileSync(join(t.root, "checkout/prd.md"), "utf8")).toBe(before);
  });

  it("cuts a chunked import over max_bundle_mb with 413 bundle_too_large", async () => {
    const boundary = "----sr-test-boundary";
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.md"\r\n` +
      `Content-Type: text/markdown\r\n\r\n---\ntype: prd\n---\n# Big\n\n`;
    const res = await chunkedUpload(
      port,
      "POST",
      "/api/v1/bundles/import",
      512 * MB,
      { "content-type": `multipart/form-data; boundary=${boundary}` },
      head,
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "bundle_too_large" });
    expect(res.sentAtAnswer).toBeLessThan(100 * MB);
    expect((await json<BundleList>(t.req("GET", "/bundles"))).items.map((b) => b.slug)).not.toContain("big");
  });

  it("holds a JSON body to 1 MiB, chunked or announced", async () => {
    const res = await chunkedUpload(
      port,
      "POST",
      "/api/v1/admin/backends",
      64 * MB,
      {
        "content-type": "application/json",
      },
      '{"kind":"agent_cli","name":"',
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "body_too_large" });
    expect(res.sentAtAnswer).toBeLessThan(32 * MB);

    const big = JSON.stringify({ kind: "agent_cli", name: "x".repeat(JSON_BODY_LIMIT) });
    await problem(await t.req("POST", "/admin/backends", big), 413, "body_too_large");
  });

  it("takes a streamed body under the limit, to an upper-case doc id too", async () => {
    const current = await json<{ current_version: { id: string } }>(t.req("GET", `/docs/${docId}`));
    const res = await chunkedUpload(
      port,
      "PUT",
      `/api/v1/docs/${docId.toUpperCase()}/files/content?path=streamed.md&base_version=${current.current_version.id.toUpperCase()}`,
      256 * 1024,
      { "content-type": "application/octet-stream" },
    );
    expect(res.status, res.body).toBe(200);
    expect(readFileSync(join(t.root, "checkout/streamed.md")).length).toBe(256 * 1024);
  });

  it("takes a body under the limit as before", async () => {
    const small = await t.req("POST", "/render", { markdown: "# Hello" });
    expect(small.status).toBe(200);
    const text = "x".repeat(JSON_BODY_LIMIT + 10);
    // /render takes a doc, held to max_file_mb (1 MB here) rather than 1 MiB of JSON.
    await problem(await t.req("POST", "/render", { markdown: text }), 413, "file_too_large");
  });
});
