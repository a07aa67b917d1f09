/**
 * One waiver excuses one finding, never its lookalikes (issue 28): with two TBDs in two
 * sections, waiving one leaves the other counting; the waiver stays on its text through an
 * edit elsewhere, the same quote written earlier in its section and a restart, and lapses
 * when its text moves to another section or goes. A hand-written entry whose text fits two
 * findings names none, and a signed entry from before waivers carried their finding's id
 * matches by its text while that fits one finding, and says so.
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../../server/app.js";
import { createServices } from "../../../server/services.js";
import { SidecarSigner } from "../../../server/waivers/signature.js";
import { renderSidecar } from "../../../core/waivers/sidecar.js";
import { DB_KINDS, json, problem } from "../../helpers/app.js";
import type { Items, SpecDoc } from "../../helpers/types.js";
import {
  CLEAN_ADR,
  bundleWith,
  hostedWorkspace,
  type WaiverView,
  type Who,
  type Workspace,
} from "./helpers.js";

const REASON = "The retention of old columns is decided per service by its owners in Q3.";
const STORAGE = "The retention of old columns is TBD.";
const DISPLAY = "The date format of reports is TBD.";
/** The ADR with its Decision in two subsections, each with an open decision (`undecided`, MUST). */
const TWO_TBD = CLEAN_ADR.replace("## Decision\r\n\r\n", "## Decision\r\n\r\n### Storage\r\n\r\n").replace(
  "`timestamp without time zone`.",
  `\`timestamp without time zone\`. ${STORAGE}\r\n\r\n### Display\r\n\r\n${DISPLAY}`,
);
const TITLE = "Store every timestamp in UTC 🕰️";

interface Finding {
  id: string;
  check_slug: string;
  message: string;
  anchor: { quote: string; heading_path: string[]; prefix: string };
}

/** The app's API as one person sees it, and a wait for its runs (an app started again has its own). */
interface Api {
  req(who: Who, method: string, path: string, body?: unknown): Promise<Response>;
  idle(): Promise<void>;
}

describe.each(DB_KINDS)("one waiver, one finding, on %s", (kind) => {
  const secretKey = randomBytes(32);
  let w: Workspace;
  let api: Api;
  let closeAgain: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    w = await hostedWorkspace(kind, undefined, secretKey);
    api = { req: (...args) => w.req(...args), idle: () => w.t.runs.idle() };
  }, 180_000);
  afterEach(async () => {
    await closeAgain?.();
    closeAgain = undefined;
    await w.t.close();
  });

  const read = async (docId: string) => {
    await api.idle();
    return json<SpecDoc>(api.req("author", "GET", `/docs/${docId}`));
  };
  const findings = async (docId: string) => {
    const doc = await read(docId);
    return (await json<Items<Finding>>(api.req("author", "GET", `/runs/${doc.verdict!.run_id}/findings`)))
      .items;
  };
  const undecided = async (docId: string) =>
    (await findings(docId)).filter((f) => f.check_slug === "undecided");
  const inSection = (list: Finding[], section: string) =>
    list.filter((f) => f.anchor.heading_path.at(-1) === section);
  const save = async (docId: string, path: string, text: string) => {
    const head = (await read(docId)).current_version.id;
    const res = await api.req(
      "author",
      "PUT",
      `/docs/${docId}/files/content?path=${path}&base_version=${head}`,
      text,
    );
    expect(res.status, await res.clone().text()).toBe(200);
    await api.idle();
  };
  const waivers = async (docId: string) =>
    (await json<Items<WaiverView>>(api.req("author", "GET", `/docs/${docId}/waivers`))).items;

  /** The doc with two TBDs, the Storage one waived (asked by the author, approved by the reviewer). */
  async function waivedStorage() {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", TWO_TBD);
    expect(doc.verdict).toMatchObject({ result: "not_build_ready", must: 2, waiver_count: 0 });
    const [storage] = inSection(await undecided(doc.id), "Storage");
    const asked = await json<WaiverView>(
      api.req("author", "POST", `/docs/${doc.id}/waivers`, { finding_id: storage!.id, reason: REASON }),
    );
    const approved = await api.req("reviewer", "POST", `/waivers/${asked.id}/approve`);
    expect(approved.status, await approved.clone().text()).toBe(200);
    return { doc, storage: storage!, waiver: asked };
  }

  it("two TBDs in two sections: waiving one leaves the other counting, and it may be waived on its own", async () => {
    const { doc } = await waivedStorage();
    expect((await read(doc.id)).verdict).toMatchObject({
      result: "not_build_ready",
      must: 1,
      waiver_count: 1,
    });
    // The other TBD is not the waived one: asking for it is no duplicate.
    const [display] = inSection(await undecided(doc.id), "Display");
    const other = await api.req("author", "POST", `/docs/${doc.id}/waivers`, {
      finding_id: display!.id,
      reason: REASON,
    });
    expect(other.status, await other.clone().text()).toBe(201);
  });

  it("the waiver stays on its text through edits elsewhere, an equal quote before it and a restart; it lapses when the text moves or goes", async () => {
    const { doc, storage, waiver } = await waivedStorage();
    const counts = async () => {
      const v = (await read(doc.id)).verdict!;
      return { must: v.must, waiver_count: v.waiver_count };
    };
    const view = async () => (await waivers(doc.id)).find((x) => x.id === waiver.id)!;

    // An edit in another section: the same finding, still waived.
    let text = TWO_TBD.replace("one service per sprint", "two services per sprint");
    await save(doc.id, "utc.md", text);
    expect(await counts()).toEqual({ must: 1, waiver_count: 1 });
    expect(inSection(await undecided(doc.id), "Storage").map((f) => f.id)).toEqual([storage.id]);

    // The same quote written earlier in the same section: a new finding; the waiver stays on the original.
    text = text.replace(
      "### Storage\r\n\r\n",
      "### Storage\r\n\r\nWhether to backfill old rows is TBD.\r\n\r\n",
    );
    await save(doc.id, "utc.md", text);
    const both = inSection(await undecided(doc.id), "Storage");
    expect(both).toHaveLength(2);
    expect(both[1]!.id).toBe(storage.id);
    expect(both[0]!.id).not.toBe(storage.id);
    expect(await counts()).toEqual({ must: 2, waiver_count: 1 });
    expect(await view()).toMatchObject({ status: "approved", lapsed: false, finding_id: storage.id });

    // A restart (a new app on the same database) changes nothing, and its next lint neither.
    await w.t.services.close();
    const again = await createServices({
      mode: "hosted",
      database: w.t.database,
      secretKey,
      auth: w.auth,
      profilesDir: resolve(import.meta.dirname, "../../../profiles"),
      serverVersion: "0.0.0-test",
    });
    closeAgain = () => again.close();
    const app = createApp(again);
    api = {
      req: (who, method, path, body) =>
        Promise.resolve(
          app.request(`/api/v1${path}`, {
            method,
            headers: {
              ...w.as(who),
              ...(typeof body === "object" ? { "content-type": "application/json" } : {}),
            },
            ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
          }),
        ),
      idle: () => again.runs.idle(),
    };
    expect(await counts()).toEqual({ must: 2, waiver_count: 1 });
    text = text.replace("two services per sprint", "three services per sprint");
    await save(doc.id, "utc.md", text);
    expect(await counts()).toEqual({ must: 2, waiver_count: 1 });
    expect(await view()).toMatchObject({ lapsed: false });

    // The waived text moved to another section: the waiver lapses, and the moved text is a new finding.
    const moved = text.replace(` ${STORAGE}`, "").replace(DISPLAY, `${DISPLAY} ${STORAGE}`);
    await save(doc.id, "utc.md", moved);
    expect((await undecided(doc.id)).map((f) => f.id)).not.toContain(storage.id);
    expect(await counts()).toEqual({ must: 3, waiver_count: 0 });
    expect(await view()).toMatchObject({ status: "approved", lapsed: true });
    expect((await view()).section).toBeUndefined();

    // Back where it was, it applies again; deleted, it lapses.
    await save(doc.id, "utc.md", text);
    expect(await counts()).toEqual({ must: 2, waiver_count: 1 });
    await save(doc.id, "utc.md", text.replace(` ${STORAGE}`, ""));
    expect(await counts()).toEqual({ must: 2, waiver_count: 0 });
    expect(await view()).toMatchObject({ lapsed: true });
  });

  it("a hand-written entry whose text fits two findings names none, and cannot be approved", async () => {
    const text = TWO_TBD.replace(
      "### Storage\r\n\r\n",
      "### Storage\r\n\r\nWhether to backfill old rows is TBD.\r\n\r\n",
    );
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", text);
    expect(doc.verdict).toMatchObject({ must: 3 });
    const typed = [
      "waivers:",
      "  - check: undecided",
      `    section: ${JSON.stringify([TITLE, "Decision", "Storage"])}`,
      "    quote: TBD",
      `    reason: ${REASON}`,
      "",
    ].join("\n");
    await save(doc.id, "utc.review.yaml", typed);
    // No finding says a waiver is written for it: the entry names none.
    expect((await findings(doc.id)).some((f) => f.message.includes("is written in utc.review.yaml"))).toBe(
      false,
    );
    const [request] = await waivers(doc.id);
    expect(request).toMatchObject({ status: "requested", source: "sidecar", lapsed: false });
    expect((request as WaiverView & { problem?: string }).problem).toContain("fit 2 findings");
    const refused = await problem(
      await api.req("reviewer", "POST", `/waivers/${request!.id}/approve`),
      409,
      "waiver_ambiguous",
    );
    expect(refused.finding_ids).toHaveLength(2);
    expect((await read(doc.id)).verdict).toMatchObject({ must: 3, waiver_count: 0 });
  });

  it("a signed entry without a finding id (written before) matches by check, quote and section while they fit one finding, and says so", async () => {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", TWO_TBD);
    const entry = {
      id: crypto.randomUUID(),
      check: "undecided",
      file: "utc.md",
      section: [TITLE, "Decision", "Storage"],
      quote: "TBD",
      reason: REASON,
      requested_by: "Aki Author",
      approved_by: ["Rui Reviewer"],
      approved_at: "2026-01-01T00:00:00.000Z",
    };
    const signed = { ...entry, signature: new SidecarSigner(secretKey).sign(doc.id, entry) };
    await save(doc.id, "utc.review.yaml", renderSidecar({ waivers: [signed], acknowledgements: [] }));
    expect((await read(doc.id)).verdict).toMatchObject({ must: 1, waiver_count: 1 });
    const [storage] = inSection(await undecided(doc.id), "Storage");
    expect(storage!.message).toContain("written before waivers carried their finding's id");

    // A second TBD in its section: its text fits two findings, so it names none.
    await save(
      doc.id,
      "utc.md",
      TWO_TBD.replace(
        "### Storage\r\n\r\n",
        "### Storage\r\n\r\nWhether to backfill old rows is TBD.\r\n\r\n",
      ),
    );
    expect((await read(doc.id)).verdict).toMatchObject({ must: 3, waiver_count: 0 });
  });
});
