/**
 * The safe fetcher of external targets against real local HTTP servers: private addresses
 * refused (directly, after DNS, after a redirect), the size and time limits, and what a
 * team that allows private targets gets.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  addressPolicy,
  addressRange,
  isPublicAddress,
  type AddressPolicy,
} from "../../../server/net/address-policy.js";
import { fetchTarget, TargetFetchError, type FetchTargetOptions } from "../../../server/net/fetch-target.js";
import { htmlToText } from "../../../server/net/html-text.js";

const servers: Array<{ server: Server; sockets: Set<Socket> }> = [];

async function serve(handler: RequestListener, host = "127.0.0.1"): Promise<string> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  servers.push({ server, sockets });
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const { server, sockets } of servers.splice(0)) {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

/** What stopped a read. */
async function refusal(url: string, opts: FetchTargetOptions = {}): Promise<TargetFetchError> {
  const err = await fetchTarget(url, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TargetFetchError);
  return err as TargetFetchError;
}

/**
 * 127.0.0.2 stands in for a public server (the default policy, plus that one address), so
 * what a redirect leads to is judged by the real policy.
 */
const publicish: AddressPolicy = (a) => a === "127.0.0.2" || isPublicAddress(a);

describe("the address policy", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.1.2.3", "loopback"],
    ["169.254.169.254", "linkLocal"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["::ffff:10.0.0.1", "private"],
    ["[::1]", "loopback"],
    ["2001:db8::1", "reserved"],
  ])("refuses %s (%s)", (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["93.184.215.14", "8.8.8.8", "2606:4700::6810:85e5", "::ffff:8.8.8.8"])("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it("allows private addresses only when told to, and never a name that is not an address", () => {
    expect(addressPolicy(true)("10.0.0.1")).toBe(true);
    expect(addressPolicy(false)("10.0.0.1")).toBe(false);
    expect(addressPolicy(true)("not-an-ip")).toBe(false);
  });
});

describe("fetchTarget", () => {
  it("refuses a loopback target, by address and by name, unless private targets are allowed", async () => {
    const base = await serve((_req, res) => res.end("hello"));
    const port = new URL(base).port;
    const direct = await refusal(`${base}/page`, { allowPrivate: false });
    expect(direct.reason).toBe("disallowed");
    expect(direct.message).toContain("127.0.0.1 is not a public address");
    const named = await refusal(`http://localhost:${port}/page`, { allowPrivate: false });
    expect(named.reason).toBe("disallowed");
    expect(named.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);

    const read = await fetchTarget(`${base}/page`, { allowPrivate: true });
    expect(read).toMatchObject({ status: 200, text: "hello", redirects: [], finalUrl: `${base}/page` });
  });

  it("reads SPEC_REVIEW_ALLOW_PRIVATE_TARGETS when not told either way", async () => {
    const base = await serve((_req, res) => res.end("internal wiki"));
    expect((await refusal(base)).reason).toBe("disallowed");
    vi.stubEnv("SPEC_REVIEW_ALLOW_PRIVATE_TARGETS", "1");
    expect((await fetchTarget(base)).text).toBe("internal wiki");
  });

  it("refuses a redirect to 127.0.0.1 or to the cloud metadata address, checked at every hop", async () => {
    const inside = await serve((_req, res) => res.end("secret"));
    const start = await serve((req, res) => {
      const to: Record<string, string> = {
        "/loopback": `${inside}/x`,
        "/metadata": "http://169.254.169.254/latest/meta-data/iam/",
        "/mapped": `http://[::ffff:127.0.0.1]:${new URL(inside).port}/x`,
        "/twice": "/loopback",
      };
      res.writeHead(302, { location: to[req.url ?? ""] ?? "/" }).end();
    }, "127.0.0.2");
    for (const path of ["/loopback", "/metadata", "/mapped", "/twice"]) {
      const err = await refusal(`${start}${path}`, { policy: publicish });
      expect(err.reason, path).toBe("disallowed");
      expect(err.message, path).toMatch(/^redirect to .* is not a public address/);
    }
  });

  it("follows redirects between allowed addresses and reports the chain", async () => {
    const base = await serve((req, res) => {
      if (req.url === "/old") res.writeHead(301, { location: "/moved" }).end();
      else if (req.url === "/moved") res.writeHead(307, { location: "/final?x=1" }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end(`at ${req.url}`);
    }, "127.0.0.2");
    const read = await fetchTarget(`${base}/old`, { policy: publicish });
    expect(read.redirects).toEqual([`${base}/moved`, `${base}/final?x=1`]);
    expect(read).toMatchObject({ finalUrl: `${base}/final?x=1`, text: "at /final?x=1" });
  });

  it("checks every address a name resolves to and connects to the one it checked", async () => {
    const base = await serve((req, res) => res.end(`host ${req.headers.host}`), "127.0.0.2");
    const port = new URL(base).port;
    const resolve = vi.fn(async (host: string) => {
      await Promise.resolve();
      return host === "docs.example.test" ? ["127.0.0.2"] : ["127.0.0.2", "10.0.0.7"];
    });
    const read = await fetchTarget(`http://docs.example.test:${port}/`, { policy: publicish, resolve });
    // The request went to the pinned address, with the name in Host.
    expect(read.text).toBe(`host docs.example.test:${port}`);
    const mixed = await refusal(`http://mixed.example.test:${port}/`, { policy: publicish, resolve });
    expect(mixed.message).toContain("mixed.example.test resolves to 10.0.0.7");
    expect(resolve).toHaveBeenCalledTimes(2);
  });

  it("refuses a body over the size limit, announced or not", async () => {
    const big = "x".repeat(10_000);
    const base = await serve((req, res) => {
      if (req.url === "/announced") res.writeHead(200, { "content-length": String(big.length) }).end(big);
      else if (req.url === "/gzip")
        res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync(Buffer.from(big)));
      else {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write(big.slice(0, 5000));
        res.end(big.slice(5000));
      }
    });
    for (const path of ["/announced", "/chunked", "/gzip"]) {
      const err = await refusal(`${base}${path}`, { allowPrivate: true, maxBytes: 4096 });
      expect(err.reason, path).toBe("too_large");
    }
    const ok = await fetchTarget(`${base}/gzip`, { allowPrivate: true, maxBytes: 20_000 });
    expect(ok.text).toBe(big);
  });

  it("times out a slow target, headers or body", async () => {
    const base = await serve((req, res) => {
      if (req.url === "/slow-body") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first part… ");
        return; // the rest never comes
      }
      // /silent: never answers
    });
    for (const path of ["/silent", "/slow-body"]) {
      const err = await refusal(`${base}${path}`, { allowPrivate: true, timeoutMs: 300 });
      expect(err.reason, path).toBe("timeout");
    }
  });

  it("refuses other schemes, credentials in the URL, non-text bodies and error statuses", async () => {
    const base = await serve((req, res) => {
      if (req.url === "/pdf") res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF");
      else if (req.url === "/loop") res.writeHead(302, { location: "/loop" }).end();
      else res.writeHead(404).end("no");
    });
    expect((await refusal("file:///etc/passwd")).reason).toBe("disallowed");
    expect((await refusal("ftp://example.com/x")).reason).toBe("disallowed");
    expect((await refusal("http://user:pw@example.com/")).reason).toBe("disallowed");
    expect((await refusal(`${base}/pdf`, { allowPrivate: true })).reason).toBe("unsupported");
    expect((await refusal(`${base}/missing`, { allowPrivate: true })).message).toBe("answered HTTP 404");
    const loop = await refusal(`${base}/loop`, { allowPrivate: true, maxRedirects: 3 });
    expect(loop).toMatchObject({ reason: "unreachable" });
    expect(loop.message).toContain("more than 3 redirects");
  });

  it("turns an HTML page into its text", async () => {
    const base = await serve((_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          "<!doctype html><html><head><style>p{}</style><script>alert(1)</script></head>" +
            "<body><h1>Orders API</h1><p>Rate limit: 100&nbsp;req/s &amp; burst 20 &#8212; per key.</p></body></html>",
        ),
    );
    const read = await fetchTarget(base, { allowPrivate: true });
    expect(read.text).toBe("Orders API\nRate limit: 100 req/s & burst 20 — per key.");
  });
});

describe("htmlToText", () => {
  it("keeps list items and table cells apart and drops comments", () => {
    expect(
      htmlToText(
        "<ul><li>one</li><li>two</li></ul><!-- hidden --><table><tr><td>a</td><td>b</td></tr></table>",
      ),
    ).toBe("one\ntwo\na b");
  });
});
