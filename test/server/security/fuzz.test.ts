/**
 * Issue 9: a fuzz test over the whole API. For every operation of the app's own
 * `openapi.json`, each parameter (path, query, header) and the body get generated bad values
 * (wrong types, huge numbers, empty, very long, NUL, `../`, unicode, malformed JSON, a wrong
 * content type), one at a time on an otherwise plausible request. Every answer must be below
 * 500 (501 `not_implemented` for an operation not built) and every error problem+json with a
 * known code. Deterministic (fixed seed), bounded (a few thousand requests), one PGlite app.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTestApp, type TestApp } from "../../helpers/app.js";
import type { BundleList } from "../../helpers/types.js";
import { ERROR_CODES } from "../../../server/errors.js";

const DEMO = resolve(import.meta.dirname, "../../../fixtures/demo");
const SEED = 0x5eed_2026;
const MAX_REQUESTS = Number(process.env.FUZZ_MAX_REQUESTS ?? 4000);

/**
 * Failures known and left for their owners, as `METHOD /path/template`: each is reported,
 * not fixed here. Keep this list empty when possible; an entry that no longer fails is an
 * error too, so the list never goes stale.
 */
const KNOWN: ReadonlyArray<{ op: string; why: string }> = [];

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: { type: string; schema: Schema };
  notImplemented: boolean;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BAD_STRINGS = [
  "",
  " ",
  "x".repeat(5000),
  "a\u0000b",
  "../../../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "/absolute/path.md",
  "C:\\windows\\win.ini",
  "-1",
  "0",
  "1.5",
  "99999999999999999999",
  "9223372036854775808",
  "-9223372036854775809",
  "1e309",
  "NaN",
  "true",
  "null",
  "{}",
  "[]",
  "😀🚀",
  "\u202eevil\u202c.md",
  "e\u0301.md",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "%",
  "%zz",
  "ABCDEF01-2345-6789-ABCD-EF0123456789",
  "00000000-0000-0000-0000-000000000000",
];

/** Sent in the path or query as they are, not encoded again: bytes that are not UTF-8, a NUL. */
const RAW_ENCODED = ["%ED%A0%80", "%FF%FE", "%00", "%2e%2e%2f%2e%2e%2f", "%C0%AE%C0%AE"];

const BAD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  "",
  "x".repeat(20_000),
  "a\u0000b",
  "../x",
  [],
  [null],
  {},
  { nested: { deeper: [1, "2", null] } },
];

describe("fuzzing every operation of openapi.json", () => {
  let t: TestApp;
  let ops: Operation[];
  let components: Record<string, Schema>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await makeTestApp({ fixture: DEMO });
    const doc = await json<{
      paths: Record<string, Record<string, Schema>>;
      components?: { schemas?: Record<string, Schema> };
    }>(t.req("GET", "/openapi.json"));
    components = doc.components?.schemas ?? {};
    ops = [];
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)
          ?.content;
        const [type, media] = content ? Object.entries(content)[0]! : [];
        ops.push({
          method: method.toUpperCase(),
          path,
          parameters: (op.parameters as Parameter[] | undefined) ?? [],
          ...(type && media ? { body: { type, schema: media.schema } } : {}),
          notImplemented: op["x-not-implemented"] === true,
        });
      }
    // Deletes last, so the fixture's resources live through the rest.
    ops.sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const bundle = list.items.find((b) => b.slug === "checkout")!;
    ids.bundleId = bundle.id;
    ids.docId = bundle.docs[0]!.id;
    ids.version = bundle.docs[0]!.current_version.id;
  });
  afterAll(async () => {
    await t.close();
  });

  function deref(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; i < 10 && typeof s.$ref === "string"; i++)
      s = components[s.$ref.replace("#/components/schemas/", "")] ?? {};
    return s;
  }

  /** A plausible value for a schema (the request around the one bad value should be valid). */
  function sample(schema: Schema | undefined, name = "", depth = 0): unknown {
    const s = deref(schema);
    if (depth > 6) return undefined;
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const list = s[key] as Schema[] | undefined;
      if (list?.length) {
        const pick = list.find((x) => deref(x).type !== "null") ?? list[0];
        return sample(pick, name, depth + 1);
      }
    }
    if (s.default !== undefined) return s.default;
    if (Array.isArray(s.enum)) return s.enum[0];
    if (s.const !== undefined) return s.const;
    const type = Array.isArray(s.type) ? (s.type as string[]).find((x) => x !== "null") : (s.type as string);
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {};
        const props = (s.properties ?? {}) as Record<string, Schema>;
        for (const key of (s.required as string[] | undefined) ?? [])
          out[key] = sample(props[key], key, depth + 1);
        return out;
      }
      case "array":
        return [sample(s.items as Schema, name, depth + 1)];
      case "integer":
      case "number":
        return typeof s.minimum === "number" ? s.minimum : 1;
      case "boolean":
        return false;
      default: {
        if (s.format === "uuid")
          return name === "base_version" ? ids.version : (ids[name] ?? crypto.randomUUID());
        if (s.format === "date-time") return "2026-01-01T00:00:00Z";
        if (/path|file|from|to/.test(name)) return "prd.md";
        if (name === "version") return "1";
        const min = typeof s.minLength === "number" ? s.minLength : 1;
        return "fuzz".padEnd(Math.max(min, 4), "z");
      }
    }
  }

  interface Req {
    op: Operation;
    pathValues: Record<string, string>;
    query: Record<string, string>;
    headers: Record<string, string>;
    body?: string | FormData | Uint8Array;
    contentType?: string;
    what: string;
  }

  function baseline(op: Operation): Req {
    const pathValues: Record<string, string> = {};
    const query: Record<string, string> = {};
    const headers: Record<string, string> = {};
    for (const p of op.parameters) {
      const v = sample(p.schema, p.name);
      if (p.in === "path") pathValues[p.name] = String(v);
      else if (p.in === "query" && (p.required || p.name === "path")) query[p.name] = String(v);
      else if (p.in === "header" && p.required) headers[p.name] = String(v);
    }
    const req: Req = { op, pathValues, query, headers, what: "baseline" };
    if (op.body) {
      req.contentType = op.body.type;
      if (op.body.type === "application/json") req.body = JSON.stringify(sample(op.body.schema));
      else if (op.body.type === "multipart/form-data") {
        const form = new FormData();
        form.set("file", new File(["---\ntype: prd\n---\n# Fuzz\n"], "fuzz.md"));
        req.body = form;
      } else req.body = "# fuzz\n";
    }
    return req;
  }

  async function send(req: Req): Promise<Response> {
    let path = req.op.path;
    const enc = (v: string) => (RAW_ENCODED.includes(v) ? v : encodeURIComponent(v));
    for (const [k, v] of Object.entries(req.pathValues)) path = path.replace(`{${k}}`, enc(v));
    const qs = Object.entries(req.query)
      .map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
      .join("&");
    const headers = { ...req.headers };
    if (req.contentType && !(req.body instanceof FormData)) headers["content-type"] = req.contentType;
    return t.app.request("/api/v1" + path + (qs ? `?${qs}` : ""), {
      method: req.op.method,
      headers,
      ...(req.body !== undefined ? { body: req.body as RequestInit["body"] } : {}),
    });
  }

  function mutations(op: Operation, rand: () => number): Req[] {
    const out: Req[] = [];
    const pick = <T>(list: readonly T[], n: number): T[] => {
      const copy = [...list];
      const chosen: T[] = [];
      while (chosen.length < n && copy.length)
        chosen.push(copy.splice(Math.floor(rand() * copy.length), 1)[0]!);
      return chosen;
    };
    const perParam = op.notImplemented ? 3 : 10;
    for (const p of op.parameters) {
      if (p.in === "cookie") continue;
      for (const bad of [...pick(BAD_STRINGS, perParam), ...pick(RAW_ENCODED, 2)]) {
        const r = baseline(op);
        if (p.in === "path") r.pathValues[p.name] = bad;
        else if (p.in === "query") r.query[p.name] = bad;
        else if (/^[\t\x20-\x7e]*$/.test(bad)) r.headers[p.name] = bad;
        else continue;
        r.what = `${p.in} ${p.name}=${JSON.stringify(bad.slice(0, 40))}`;
        out.push(r);
      }
    }
    // Headers every operation may get: resumption ids, conditional and content negotiation.
    const printable = BAD_STRINGS.filter((b) => /^[\t\x20-\x7e]*$/.test(b));
    for (const name of ["last-event-id", "if-none-match", "accept", "range"])
      for (const bad of pick(printable, op.notImplemented ? 1 : 2)) {
        const r = baseline(op);
        r.headers[name] = bad;
        r.what = `header ${name}=${JSON.stringify(bad.slice(0, 40))}`;
        out.push(r);
      }
    if (op.method !== "GET" && op.method !== "DELETE") {
      const bodies: Array<[string, string | undefined, string | FormData]> = [
        ["malformed JSON", "application/json", "{"],
        ["empty JSON body", "application/json", ""],
        ["JSON null", "application/json", "null"],
        ["JSON array", "application/json", "[]"],
        ["JSON string", "application/json", '"text"'],
        ["deep JSON", "application/json", "[".repeat(5000) + "]".repeat(5000)],
        ["NUL in JSON", "application/json", '{"a":"\\u0000"}'],
        ["text/plain", "text/plain", "plain text"],
        ["xml", "application/xml", "<a/>"],
        ["no content type", undefined, '{"a":1}'],
        [
          "multipart",
          "multipart/form-data; boundary=x",
          "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n",
        ],
        ["broken multipart", "multipart/form-data; boundary=x", "--x\r\nnot a part"],
        ["multipart without boundary", "multipart/form-data", "a=1"],
      ];
      for (const [what, type, body] of pick(bodies, op.notImplemented ? 3 : bodies.length)) {
        const r = baseline(op);
        r.body = body;
        r.contentType = type;
        if (type === undefined) delete r.contentType;
        r.what = `body: ${what}`;
        out.push(r);
      }
      if (op.body?.type === "application/json") {
        const base = sample(op.body.schema) as Record<string, unknown>;
        const props = Object.keys(deref(op.body.schema).properties ?? {});
        for (const key of props)
          for (const bad of pick(BAD_VALUES, op.notImplemented ? 2 : BAD_VALUES.length)) {
            const r = baseline(op);
            r.body = JSON.stringify({ ...base, [key]: bad });
            r.what = `body.${key}=${JSON.stringify(bad)?.slice(0, 40)}`;
            out.push(r);
          }
        const r = baseline(op);
        r.body = JSON.stringify({
          ...base,
          ["__proto__"]: { polluted: true },
          constructor: { prototype: 1 },
        });
        r.what = "body: __proto__";
        out.push(r);
      }
    }
    return out;
  }

  it("answers every generated bad request with a 4xx problem+json (or 501 for what is not built)", async () => {
    const rand = mulberry32(SEED);
    const failures = new Map<string, string[]>();
    let sent = 0;
    let baselineOk = 0;
    const all: Req[] = [];
    for (const op of ops) all.push(baseline(op), ...mutations(op, rand));
    // Bounded: every operation keeps its baseline; mutations are sampled down to the budget.
    const keep = Math.min(1, MAX_REQUESTS / all.length);
    for (const req of all) {
      if (req.what !== "baseline" && rand() > keep) continue;
      sent++;
      let res: Response;
      try {
        res = await send(req);
      } catch (err) {
        failures.set(`${req.op.method} ${req.op.path}`, [
          ...(failures.get(`${req.op.method} ${req.op.path}`) ?? []),
          `${req.what}: threw ${String(err)}`,
        ]);
        continue;
      }
      if (req.what === "baseline" && res.status < 300) baselineOk++;
      const type = res.headers.get("content-type") ?? "";
      const text = res.status >= 400 ? await res.text() : (await res.body?.cancel(), "");
      let problem = "";
      if (res.status >= 500 && !(res.status === 501 && req.op.notImplemented))
        problem = `status ${res.status}`;
      else if (res.status >= 400) {
        if (!type.startsWith("application/problem+json")) problem = `${res.status} as ${type}`;
        else {
          const body = JSON.parse(text) as { code?: string; status?: number };
          if (!body.code || !(body.code in ERROR_CODES) || body.status !== res.status)
            problem = `${res.status} with code ${String(body.code)}`;
        }
      }
      if (problem) {
        const key = `${req.op.method} ${req.op.path}`;
        failures.set(key, [...(failures.get(key) ?? []), `${req.what}: ${problem} ${text.slice(0, 200)}`]);
      }
    }
    expect(sent).toBeGreaterThan(500);
    // The requests around the bad values are valid enough to reach the operations' code.
    expect(baselineOk).toBeGreaterThan(25);
    expect(sent).toBeLessThanOrEqual(MAX_REQUESTS + ops.length);
    const known = new Set(KNOWN.map((k) => k.op));
    const unexpected = [...failures].filter(([op]) => !known.has(op));
    if (process.env.FUZZ_VERBOSE)
      console.log(`sent ${sent} of ${all.length}; ${baselineOk} baselines answered 2xx`);
    expect(unexpected.map(([op, list]) => `${op}\n  ${list.slice(0, 5).join("\n  ")}`).join("\n")).toBe("");
    const fixed = [...known].filter((op) => !failures.has(op));
    expect(fixed, "known failures that no longer fail: remove them from KNOWN").toEqual([]);
  }, 600_000);
});
