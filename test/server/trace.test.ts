/**
 * The trace view and its writes (contract 2.8, 2.9, 4.2) over a folder shaped like a
 * team's: a PRD with REQ IDs (CRLF, emoji), a design and an API spec implementing it, an
 * RFC referencing an ADR and superseding an RFC that does not exist.
 */
import { readFileSync } from "node:fs";
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
    });
    afterEach(() => t.close());

    it("lists a doc's links by origin, with the bundle, and external targets unchecked", async () => {
      const api = await trace("shop/api");
      const links = api.links.map((l) => [l.kind, l.origin, l.target_kind, l.target_ref, l.bundle?.slug ?? null]);
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
      expect(m.cells[2]![1]!.section).toEqual(["Gift card redemption: technical design", "Proposed design", "Combining with a card"]);
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
      const adr = await trace("decisions/adr-0007-outbox");
      expect(adr.incoming.map((l) => [l.kind, l.target_ref])).toEqual([["references", "decisions/rfc-0042-retry-queue"]]);
    });
  });
}
