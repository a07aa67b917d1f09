/**
 * A hosted workspace with real people (rows in `users`, so GET /people, reviewers and
 * approvers see them) and a test header that says who calls, plus the specs the waiver
 * tests share: a clean ADR with one open decision (a MUST finding) and a hedge (SHOULD).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect } from "vitest";
import type { Actor, Authenticator } from "../../../server/auth/actor.js";
import { users } from "../../../server/db/schema.js";
import { json, makeTestApp, type TestApp } from "../../helpers/app.js";
import type { SpecDoc, WriteResult } from "../../helpers/types.js";

export const PEOPLE = {
  author: { name: "Aki Author", role: "member" },
  reviewer: { name: "Rui Reviewer", role: "member" },
  maintainer: { name: "Mai Maintainer", role: "member" },
  admin: { name: "Ada Admin", role: "admin" },
  viewer: { name: "Vi Viewer", role: "viewer" },
} as const;
export type Who = keyof typeof PEOPLE;

const HEADER = "x-test-person";

export interface Workspace {
  t: TestApp;
  /** Who calls, by the test header (for an app started again on the same database). */
  auth: Authenticator;
  ids: Record<Who, string>;
  as(who: Who): Record<string, string>;
  req(who: Who, method: string, path: string, body?: unknown): Promise<Response>;
}

export async function hostedWorkspace(
  kind: "pglite" | "postgres",
  now?: () => Date,
  secretKey?: Uint8Array,
): Promise<Workspace> {
  const ids = Object.fromEntries(Object.keys(PEOPLE).map((k) => [k, randomUUID()])) as Record<Who, string>;
  const actors = new Map<string, Actor>(
    (Object.keys(PEOPLE) as Who[]).map((k) => [
      k,
      { id: ids[k], name: PEOPLE[k].name, kind: "user", role: PEOPLE[k].role },
    ]),
  );
  const auth: Authenticator = {
    actorOf: (req) => Promise.resolve(actors.get(req.headers.get(HEADER) ?? "")),
  };
  const t = await makeTestApp({
    kind,
    mode: "hosted",
    auth,
    ...(now ? { clock: { now } } : {}),
    ...(secretKey ? { secretKey } : {}),
  });
  const at = new Date("2026-01-01T00:00:00Z");
  await t.database.db.insert(users).values(
    (Object.keys(PEOPLE) as Who[]).map((k) => ({
      id: ids[k],
      email: `${k}@example.com`,
      name: PEOPLE[k].name,
      role: PEOPLE[k].role,
      passwordHash: "unused",
      createdAt: at,
    })),
  );
  const as = (who: Who) => ({ [HEADER]: who });
  return { t, auth, ids, as, req: (who, method, path, body) => t.req(method, path, body, as(who)) };
}

/** A Nygard-style ADR that lint passes, CRLF line ends and an emoji included. */
export const CLEAN_ADR = readFileSync(
  resolve(import.meta.dirname, "../../../fixtures/eval/adr-clean-utc-timestamps/spec.md"),
  "utf8",
)
  .replace("# Store every timestamp in UTC", "# Store every timestamp in UTC 🕰️")
  .replace(/\r?\n/g, "\r\n");

/** The same ADR with an open decision in its Decision section: one MUST finding (`undecided`). */
export const ADR_WITH_TBD = CLEAN_ADR.replace(
  "converts to the customer's time zone only in the display layer.",
  "converts to the customer's time zone only in the display layer. The retention of old columns is TBD.",
);

/** Create a bundle as `who` and write `text` as its main doc; answers the doc after the save. */
export async function bundleWith(
  w: Workspace,
  who: Who,
  name: string,
  profile: string,
  text: string,
): Promise<SpecDoc> {
  const created = await w.req(who, "POST", "/bundles", { profile, name });
  expect(created.status, await created.clone().text()).toBe(201);
  const doc = await json<SpecDoc>(created);
  const saved = await w.req(
    who,
    "PUT",
    `/docs/${doc.id}/files/content?path=${encodeURIComponent(doc.path)}&base_version=${doc.current_version.id}`,
    text,
  );
  expect(saved.status, await saved.clone().text()).toBe(200);
  await json<WriteResult>(saved);
  return readDoc(w, who, doc.id);
}

export async function readDoc(w: Workspace, who: Who, docId: string): Promise<SpecDoc> {
  await w.t.runs.idle();
  const res = await w.req(who, "GET", `/docs/${docId}`);
  expect(res.status).toBe(200);
  return json<SpecDoc>(res);
}

export interface FindingView {
  id: string;
  check_slug: string;
  level: string;
  message: string;
}

export async function findingsOf(w: Workspace, doc: SpecDoc): Promise<FindingView[]> {
  const res = await w.req("author", "GET", `/runs/${doc.verdict!.run_id}/findings`);
  expect(res.status).toBe(200);
  return (await json<{ items: FindingView[] }>(res)).items;
}

export interface WaiverView {
  id: string;
  kind: string;
  status: string;
  reason: string;
  policy: string;
  approvers: string;
  approvals_needed: number;
  approvals: Array<{ by: string; name: string; at: string }>;
  can_decide: boolean;
  finding_id?: string;
  check_slug?: string;
  rejection_reason?: string;
  section?: { start: number; end: number };
  lapsed?: boolean;
  trace?: { trace_id: string; upstream?: string; status: string };
  standalone: boolean;
  withdrawn_by?: string;
  source: string;
  created_by: string;
}

export interface InboxView {
  items: Array<{
    id: string;
    kind: string;
    sentence: string;
    url: string;
    read: boolean;
    waiver_id?: string;
  }>;
  unseen: number;
  next_cursor?: string;
}
