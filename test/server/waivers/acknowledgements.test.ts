/**
 * Acknowledgements in hosted mode: a design excuses an upstream requirement of the PRD it
 * implements (its matrix cell becomes `acknowledged`), or calls itself standalone (the
 * trace view's `standalone` object); withdrawing takes either out at once.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, problem } from "../../helpers/app.js";
import { bundleWith, hostedWorkspace, type WaiverView, type Workspace } from "./helpers.js";

const SHOP = resolve(import.meta.dirname, "../../../fixtures/trace/shop");
const REASON = "Gift card refunds are handled by the finance team's own service, not here.";

interface Trace {
  standalone?: { reason: string; acknowledged_by: string };
  matrices: Array<{
    upstream: { slug: string };
    rows: Array<{ id: string }>;
    columns: Array<{ slug: string }>;
    cells: Array<Array<{ state: string; waiver_id?: string; reason?: string }>>;
  }>;
}

describe.each(DB_KINDS)("acknowledgements in hosted mode on %s", (kind) => {
  let w: Workspace;
  beforeEach(async () => {
    w = await hostedWorkspace(kind);
  }, 180_000);
  afterEach(async () => {
    await w.t.close();
  });

  it("acknowledges an upstream trace ID: the cell is `acknowledged` until withdrawn; standalone likewise", async () => {
    await bundleWith(w, "author", "shop/prd", "prd", readFileSync(`${SHOP}/prd/prd.md`, "utf8"));
    const design = await bundleWith(
      w,
      "author",
      "shop/design",
      "design",
      readFileSync(`${SHOP}/design/design.md`, "utf8"),
    );
    const cell = async (id: string) => {
      const trace = await json<Trace>(w.req("author", "GET", `/docs/${design.id}/trace`));
      const m = trace.matrices.find((x) => x.upstream.slug === "shop/prd")!;
      const col = m.columns.findIndex((c) => c.slug === "shop/design");
      return { cell: m.cells[m.rows.findIndex((r) => r.id === id)]![col]!, trace };
    };
    expect((await cell("REQ-005")).cell.state).toBe("missing");

    await problem(
      await w.req("author", "POST", `/docs/${design.id}/waivers`, { trace_id: "REQ-999", reason: REASON }),
      400,
      "unknown_trace_id",
    );
    await problem(
      await w.req("author", "POST", `/docs/${design.id}/waivers`, {
        trace_id: "REQ-005",
        upstream: "shop/api",
        reason: REASON,
      }),
      400,
      "unknown_trace_id",
    );
    const ack = await json<WaiverView>(
      w.req("author", "POST", `/docs/${design.id}/waivers`, { trace_id: "REQ-005", reason: REASON }),
    );
    expect(ack).toMatchObject({
      kind: "trace",
      status: "requested",
      trace: { trace_id: "REQ-005", upstream: "shop/prd", status: "out_of_scope" },
      standalone: false,
    });
    expect((await cell("REQ-005")).cell.state).toBe("missing");
    await problem(
      await w.req("author", "POST", `/docs/${design.id}/acknowledgements/withdraw`, { waiver_id: ack.id }),
      409,
      "not_an_acknowledgement",
    );
    // The design profile's policy wants two approvals.
    expect(ack.approvals_needed).toBe(2);
    expect((await w.req("reviewer", "POST", `/waivers/${ack.id}/approve`)).status).toBe(200);
    expect((await cell("REQ-005")).cell.state).toBe("missing");
    expect((await w.req("admin", "POST", `/waivers/${ack.id}/approve`)).status).toBe(200);
    expect((await cell("REQ-005")).cell).toEqual({
      state: "acknowledged",
      waiver_id: ack.id,
      reason: REASON,
    });
    // A covered cell stays covered; other missing cells stay missing.
    expect((await cell("REQ-004")).cell.state).toBe("missing");

    const solo = await json<WaiverView>(
      w.req("author", "POST", `/docs/${design.id}/waivers`, {
        standalone: true,
        reason: "This design stands alone as the gift card service's reference.",
      }),
    );
    expect(solo).toMatchObject({ kind: "standalone", standalone: true, status: "requested" });
    await w.req("admin", "POST", `/waivers/${solo.id}/approve`);
    await w.req("maintainer", "POST", `/waivers/${solo.id}/approve`);
    expect((await cell("REQ-005")).trace.standalone).toEqual({
      reason: "This design stands alone as the gift card service's reference.",
      acknowledged_by: "Aki Author",
    });

    // Withdrawn at once, no approval: the cell is missing again, the sidecar keeps the other.
    const out = await json<WaiverView>(
      w.req("author", "POST", `/docs/${design.id}/acknowledgements/withdraw`, { waiver_id: ack.id }),
    );
    expect(out).toMatchObject({ status: "withdrawn", withdrawn_by: w.ids.author });
    const after = await cell("REQ-005");
    expect(after.cell.state).toBe("missing");
    expect(after.trace.standalone).toBeDefined();
    const sidecar = await (
      await w.req("author", "GET", `/docs/${design.id}/files/content?path=design.review.yaml`)
    ).text();
    expect(sidecar).toContain("standalone: true");
    expect(sidecar).not.toContain("REQ-005");
    await problem(
      await w.req("author", "POST", `/docs/${design.id}/acknowledgements/withdraw`, { waiver_id: ack.id }),
      409,
      "not_an_acknowledgement",
    );
    await problem(
      await w.req("viewer", "POST", `/docs/${design.id}/acknowledgements/withdraw`, { waiver_id: solo.id }),
      403,
      "forbidden",
    );
  });
});
