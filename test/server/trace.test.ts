/**
 * The trace view and its writes (contract 2.8, 2.9, 4.2) over a folder shaped like a
 * team's: a PRD with REQ IDs (CRLF, emoji), a design and an API spec implementing it, an
 * RFC referencing an ADR and superseding an RFC that does not exist.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/trace");

interface DocRef {
  id: string;
  slug: string;
}
interface Link {
  kind: string;
  origin: string;
  target_kind: string;
  target_ref: string;
  bundle?: DocRef;
  target_url?: string;
  state?: string;
  state_reason?: string;
  removable?: boolean;
}
interface Trace {
  links: Link[];
  incoming: Link[];
  matrices: {
    upstream: DocRef;
    rows: { id: string; text: string; anchor: { file: string; start: number; quote: string } }[];
    columns: DocRef[];
    cells: { state: string; section?: string[] }[][];
    editable: boolean[];
  }[];
  suggestions: { id: string; text: string; sections?: string[][] }[];
  problems: { code: string; message: string }[];
}
interface Doc {
  id: string;
  slug: string;
  current_version: { id: string; number: number };
  verdict?: { result: string; stale_reason?: string; stale_upstream?: DocRef[] };
}

for (const kind of DB_KINDS) {
  describe(`trace (${kind})`, () => {
    let t: TestApp;
    let bySlug: Map<string, Doc>;

    async function docs(): Promise<Map<string, Doc>> {
      const list = await json<{ items: { slug: string; docs: Doc[] }[] }>(t.req("GET", "/bundles"));
      return new Map(list.items.map((b) => [b.slug, b.docs[0]!]));
    }
    const trace = (slug: string) => json<Trace>(t.req("GET", `/docs/${bySlug.get(slug)!.id}/trace`));
    const doc = (slug: string) => json<Doc>(t.req("GET", `/docs/${bySlug.get(slug)!.id}`));

    beforeEach(async () => {
      t = await makeTestApp({ kind, fixture: FIXTURE });
      await t.runs.idle();
      bySlug = await docs();
    }, 180_000);
    afterEach(() => t?.close());

    it("lists a doc's links by origin, with the bundle, and external targets unchecked", async () => {
      const api = await trace("shop/api");
      const links = api.links.map((l) => [
        l.kind,
        l.origin,
        l.target_kind,
        l.target_ref,
        l.bundle?.slug ?? null,
      ]);
      expect(links).toEqual([
        ["implements", "frontmatter", "bundle", "shop/prd", "shop/prd"],
        ["references", "frontmatter", "external", "https://github.com/acme/shop/issues/812", null],
        ["refines", "adopted", "bundle", "shop/design", "shop/design"],
      ]);
      const ext = api.links[1]!;
      expect(ext.target_url).toBe("https://github.com/acme/shop/issues/812");
      expect(ext.state).toBe("unchecked");
      expect(ext.state_reason).toMatch(/not checked/);
      expect(api.links.every((l) => l.removable === true)).toBe(true);
      expect(api.problems).toEqual([]);
    });

    it("shows incoming links and the PRD's matrix: covered, referenced, missing", async () => {
      const prd = await trace("shop/prd");
      expect(prd.links).toEqual([]);
      expect(prd.incoming.map((l) => [l.target_ref, l.kind, l.origin])).toEqual([
        ["shop/api", "implements", "frontmatter"],
        ["shop/design", "implements", "frontmatter"],
      ]);
      expect(prd.incoming.every((l) => l.removable === undefined)).toBe(true);
      expect(prd.matrices).toHaveLength(1);
      const m = prd.matrices[0]!;
      expect(m.upstream.slug).toBe("shop/prd");
      expect(m.rows.map((r) => r.id)).toEqual(["REQ-001", "REQ-002", "REQ-003", "REQ-004", "REQ-005"]);
      expect(m.rows[0]!.text).toContain("16-digit gift card number");
      // Byte offsets: the emoji in the title and CRLF line ends come before the row.
      const bytes = readFileSync(join(FIXTURE, "shop/prd/prd.md"));
      const row = m.rows[0]!.anchor;
      expect(bytes.subarray(row.start, row.start + Buffer.byteLength(row.quote)).toString()).toBe(row.quote);
      expect(m.columns.map((c) => c.slug)).toEqual(["shop/api", "shop/design"]);
      const states = m.cells.map((r) => r.map((c) => c.state));
      expect(states).toEqual([
        ["missing", "covered"],
        ["missing", "referenced"],
        ["missing", "covered"],
        ["referenced", "missing"],
        ["missing", "missing"],
      ]);
      expect(m.cells[2]![1]!.section).toEqual([
        "Gift card redemption: technical design",
        "Proposed design",
        "Combining with a card",
      ]);
      expect(m.editable).toEqual([true, true]);
    });

    it("a downstream doc sees the matrix of each bundle it implements, and its own when others implement it", async () => {
      const design = await trace("shop/design");
      expect(design.matrices.map((m) => m.upstream.slug)).toEqual(["shop/design", "shop/prd"]);
      expect(design.matrices[0]!.rows.map((r) => r.id)).toEqual(["DES-001", "DES-002"]);
      expect(design.matrices[0]!.columns.map((c) => c.slug)).toEqual(["shop/api"]);
    });

    it("suggests an ID for a requirement without one, with the doc's sections", async () => {
      const prd = await trace("shop/prd");
      expect(prd.suggestions.map((s) => [s.id, s.text])).toEqual([
        ["REQ-006", "A shopper MUST be able to remove an applied gift card before confirming."],
      ]);
      expect(prd.suggestions[0]!.sections).toContainEqual(["Gift cards at checkout 🎁", "Requirements"]);
    });

    it("reports a slug that names no bundle, and an RFC referencing an ADR", async () => {
      const rfc = await trace("decisions/rfc-0042-retry-queue");
      expect(rfc.links.map((l) => [l.kind, l.bundle?.slug ?? null])).toEqual([
        ["references", "decisions/adr-0007-outbox"],
        ["supersedes", null],
      ]);
      expect(rfc.problems.map((p) => p.code)).toEqual(["link_unresolved"]);
      expect(rfc.matrices).toEqual([]);
      // The lint run reports it as a SHOULD finding of the profile's links-resolve check.
      const rfcId = bySlug.get("decisions/rfc-0042-retry-queue")!.id;
      const runs = await json<{ items: { id: string }[] }>(t.req("GET", `/docs/${rfcId}/runs`));
      const findings = await json<{
        items: { check: string; level: string; message: string; anchor: { quote: string } }[];
      }>(t.req("GET", `/runs/${runs.items[0]!.id}/findings`));
      expect(findings.items.filter((f) => f.message.includes("names no bundle"))).toEqual([
        expect.objectContaining({
          check_slug: "links-resolve",
          level: "SHOULD",
          anchor: expect.objectContaining({ quote: "decisions/rfc-0012-cron-retries" }),
        }),
      ]);
      const adr = await trace("decisions/adr-0007-outbox");
      expect(adr.incoming.map((l) => [l.kind, l.target_ref])).toEqual([
        ["references", "decisions/rfc-0042-retry-queue"],
      ]);
    });

    const post = (slug: string, op: string, base: string, body?: unknown) =>
      t.req("POST", `/docs/${bySlug.get(slug)!.id}/trace/${op}?base_version=${base}`, body);
    const text = (slug: string, path: string) => readFileSync(join(t.root, slug, path), "utf8");

    it("`This doc covers it` appends `Covers <ID>.` to the section as one version; again changes nothing", async () => {
      const api = bySlug.get("shop/api")!;
      const base = api.current_version.id;
      const res = await json<{
        version: { id: string; number: number };
        changed: boolean;
        verdict?: unknown;
      }>(post("shop/api", "cover", base, { trace_id: "REQ-001", section: ["Gift card API", "Endpoints"] }));
      expect(res.changed).toBe(true);
      expect(res.version.number).toBe(api.current_version.number + 1);
      expect(res.verdict).toBeDefined();
      expect(text("shop/api", "api.md")).toContain(
        "| DELETE | /giftcards/redeem-intents/{id} | release a hold |\n\nCovers REQ-001.\n\n## Errors",
      );
      const prd = await trace("shop/prd");
      expect(prd.matrices[0]!.cells[0]![0]).toEqual({
        state: "covered",
        section: ["Gift card API", "Endpoints"],
      });
      const again = await json<{ version: { id: string }; changed: boolean }>(
        post("shop/api", "cover", res.version.id, {
          trace_id: "REQ-001",
          section: ["Gift card API", "Endpoints"],
        }),
      );
      expect(again).toMatchObject({ changed: false, version: { id: res.version.id } });
    });

    it("keeps CRLF line ends when it writes into a CRLF doc", async () => {
      const prd = bySlug.get("shop/prd")!;
      const res = await json<{ changed: boolean }>(post("shop/prd", "ids", prd.current_version.id, {}));
      expect(res.changed).toBe(true);
      const after = text("shop/prd", "prd.md");
      expect(after).toContain("\r\n- **REQ-006** A shopper MUST be able to remove an applied gift card");
      expect(after.replace(/\r\n/g, "").includes("\n")).toBe(false);
      expect((await trace("shop/prd")).suggestions).toEqual([]);
    });

    it("refuses bad input with a stable code and writes nothing", async () => {
      const api = bySlug.get("shop/api")!;
      const base = api.current_version.id;
      const before = text("shop/api", "api.md");
      await problem(
        await post("shop/api", "cover", base, { trace_id: "REQ-999", section: ["Gift card API", "Errors"] }),
        400,
        "unknown_trace_id",
      );
      // The API spec's own ID is not an upstream ID.
      await problem(
        await post("shop/api", "cover", base, { trace_id: "API-001", section: ["Gift card API", "Errors"] }),
        400,
        "unknown_trace_id",
      );
      await problem(
        await post("shop/api", "cover", base, { trace_id: "REQ-004", section: ["Gift card API", "Nope"] }),
        400,
        "section_not_found",
      );
      const prd = bySlug.get("shop/prd")!;
      await problem(
        await post("shop/prd", "ids", prd.current_version.id, { ids: ["REQ-003"] }),
        409,
        "trace_id_taken",
      );
      await problem(
        await post("shop/prd", "ids", prd.current_version.id, { ids: ["REQ-077"] }),
        400,
        "unknown_trace_id",
      );
      await problem(
        await post("shop/prd", "ids", prd.current_version.id, { ids: ["REQ-006", "REQ-006"] }),
        400,
        "validation_failed",
      );
      // A write on an older version conflicts.
      await json(
        post("shop/api", "cover", base, { trace_id: "REQ-004", section: ["Gift card API", "Errors"] }),
      );
      await problem(
        await post("shop/api", "cover", base, { trace_id: "REQ-002", section: ["Gift card API", "Errors"] }),
        409,
        "version_conflict",
      );
      expect(text("shop/api", "api.md")).toBe(
        before.replace("(REQ-004) |\n", "(REQ-004) |\n\nCovers REQ-004.\n"),
      );
      expect(text("shop/prd", "prd.md")).toBe(readFileSync(join(FIXTURE, "shop/prd/prd.md"), "utf8"));
    });

    it("removes a frontmatter or an adopted link as a new version; a rule link stays", async () => {
      const api = bySlug.get("shop/api")!;
      const del = (kind: string, target: string, base: string) =>
        t.req(
          "DELETE",
          `/docs/${api.id}/links?kind=${kind}&target_ref=${encodeURIComponent(target)}&base_version=${base}`,
        );
      await problem(await del("implements", "shop/nothing", api.current_version.id), 404, "link_not_found");
      const r1 = await json<{ version: { id: string }; changed: boolean }>(
        del("refines", "shop/design", api.current_version.id),
      );
      expect(r1.changed).toBe(true);
      expect(text("shop/api", "api.md")).not.toContain("links:");
      const r2 = await json<{ version: { id: string } }>(del("implements", "shop/prd", r1.version.id));
      const after = text("shop/api", "api.md");
      expect(after).not.toContain("implements");
      expect(after).toContain("references:\n  - https://github.com/acme/shop/issues/812");
      // With no link to a bundle left, the profile's rule applies: an API spec implements the one design beside it.
      const view = await trace("shop/api");
      expect(view.links.find((l) => l.origin === "rule")).toMatchObject({
        kind: "implements",
        target_ref: "shop/design",
        removable: false,
      });
      await problem(await del("implements", "shop/design", r2.version.id), 409, "link_not_removable");
    });

    it("holds the links confirmed at import; taking one out makes no new version and the upstream staleness follows it", async () => {
      const fd = new FormData();
      fd.append("name", "wallet");
      fd.append("files", new Blob([readFileSync(join(FIXTURE, "shop/prd/prd.md"))]), "prd.md");
      fd.append("files", new Blob([readFileSync(join(FIXTURE, "shop/design/design.md"))]), "design.md");
      fd.append("links", JSON.stringify([{ from: "design.md", to: "prd.md", kind: "refines" }]));
      const made = await json<{ items: Doc[] & { slug: string; docs: Doc[] }[] }>(
        t.req("POST", "/bundles/import", fd),
      );
      bySlug = await docs();
      const design = bySlug.get("wallet/design")!;
      expect(made.items.map((b) => b.slug)).toContain("wallet/design");
      // The file is as sent: the link lives in the service.
      expect(text("wallet/design", "design.md")).toBe(
        readFileSync(join(FIXTURE, "shop/design/design.md"), "utf8"),
      );
      const held = (await trace("wallet/design")).links.find((l) => l.origin === "adopted");
      expect(held).toMatchObject({
        kind: "refines",
        target_ref: "wallet/prd",
        bundle: { slug: "wallet/prd" },
        removable: true,
      });
      expect((await trace("wallet/prd")).incoming.map((l) => [l.kind, l.target_ref])).toContainEqual([
        "refines",
        "wallet/design",
      ]);
      // A new version of the PRD makes the design's verdict stale: the held link is read too.
      const prd = bySlug.get("wallet/prd")!;
      await json(
        t.req(
          "PUT",
          `/docs/${prd.id}/files/content?path=prd.md&base_version=${prd.current_version.id}`,
          `${text("wallet/prd", "prd.md")}\n- Wallets MUST hold one currency.\n`,
        ),
      );
      expect((await doc("wallet/design")).verdict).toMatchObject({
        result: "stale",
        stale_reason: "upstream_changed",
      });

      const del = (base: string) =>
        t.req("DELETE", `/docs/${design.id}/links?kind=refines&target_ref=wallet/prd&base_version=${base}`);
      const gone = await json<{ version: { id: string }; changed: boolean }>(del(design.current_version.id));
      expect(gone).toMatchObject({ changed: false, version: { id: design.current_version.id } });
      expect(
        (await trace("wallet/design")).links.filter(
          (l) => l.target_ref === "wallet/prd" && l.origin !== "rule",
        ),
      ).toEqual([]);
      expect(text("wallet/design", "design.md")).toBe(
        readFileSync(join(FIXTURE, "shop/design/design.md"), "utf8"),
      );
      // Gone means gone: a second removal finds nothing.
      await problem(await del(design.current_version.id), 404, "link_not_found");
    });

    it("a newer upstream version makes the downstream verdict stale until a new run", async () => {
      const design = await doc("shop/design");
      expect(design.verdict?.result).not.toBe("stale");
      const prd = bySlug.get("shop/prd")!;
      const prdText = readFileSync(join(t.root, "shop/prd/prd.md"));
      const saved = await json<{ version: { id: string } }>(
        t.req(
          "PUT",
          `/docs/${prd.id}/files/content?path=prd.md&base_version=${prd.current_version.id}`,
          Buffer.concat([
            prdText,
            Buffer.from("\r\n- Gift cards MUST NOT be usable on gift card purchases.\r\n"),
          ]),
        ),
      );
      expect(saved.version.id).not.toBe(prd.current_version.id);
      const stale = await doc("shop/design");
      expect(stale.verdict).toMatchObject({
        result: "stale",
        stale_reason: "upstream_changed",
        version_number: design.current_version.number,
      });
      expect(stale.verdict!.stale_upstream!.map((d) => d.slug)).toEqual(["shop/prd"]);
      // The RFC links nothing in the shop: its verdict stays.
      expect((await doc("decisions/rfc-0042-retry-queue")).verdict?.result).not.toBe("stale");
      // The bundle list counts it like no verdict on the current version.
      const list = await json<{ items: { slug: string; state: string }[] }>(t.req("GET", "/bundles"));
      expect(list.items.find((b) => b.slug === "shop/design")!.state).toBe("not_reviewed");
      // A save of the design (a new run on the current versions) clears it.
      const designText = readFileSync(join(t.root, "shop/design/design.md"), "utf8");
      const res = await json<{ verdict?: { result: string; stale_reason?: string } }>(
        t.req(
          "PUT",
          `/docs/${design.id}/files/content?path=design.md&base_version=${design.current_version.id}`,
          designText.replace("15 minutes", "10 minutes"),
        ),
      );
      expect(res.verdict?.result).not.toBe("stale");
      const fresh = await doc("shop/design");
      expect(fresh.verdict?.stale_reason).toBeUndefined();
      expect(fresh.verdict?.result).not.toBe("stale");
    });

    it("import refuses a link of an unknown kind and links that form a cycle, writing nothing", async () => {
      const importing = (links: unknown[]) => {
        const fd = new FormData();
        fd.append("name", "wallet");
        fd.append("files", new Blob([readFileSync(join(FIXTURE, "shop/prd/prd.md"))]), "prd.md");
        fd.append("files", new Blob([readFileSync(join(FIXTURE, "shop/design/design.md"))]), "design.md");
        fd.append("links", JSON.stringify(links));
        return t.req("POST", "/bundles/import", fd);
      };
      const bad = await problem(
        await importing([{ from: "design.md", to: "prd.md", kind: "depends-on" }]),
        400,
        "validation_failed",
      );
      expect(bad["errors"]).toEqual([expect.objectContaining({ field: "body.links.0.kind" })]);
      await problem(
        await importing([
          { from: "design.md", to: "prd.md", kind: "implements" },
          { from: "prd.md", to: "design.md", kind: "refines" },
        ]),
        409,
        "link_cycle",
      );
      expect(existsSync(join(t.root, "wallet"))).toBe(false);
    });
  });
}
