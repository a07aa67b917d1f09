/**
 * A served folder shaped like a team's: a payouts PRD (CRLF line ends, emoji, a sentence
 * that appears twice) linking to the ledger design it relies on.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { json, type TestApp } from "../../helpers/app.js";
import type { BundleList, SpecDoc, WriteResult } from "../../helpers/types.js";

export const PRD = [
  "---",
  "type: prd",
  "title: Payouts 💸",
  "owner: payments-team",
  "---",
  "",
  "# Payouts 💸",
  "",
  "## Problem",
  "",
  "Sellers wait 7 days for their money; 38% of support tickets ask where it is. 🙃",
  "",
  "## Goals",
  "",
  "Sellers are paid fast and know where their money is.",
  "",
  "## Requirements",
  "",
  "- REQ-001: Payouts MUST reach the seller within 2 business days.",
  "- REQ-002: The seller MUST see each payout's status in the dashboard.",
  "- REQ-003: A failed payout MUST be retried once, then reported.",
  "",
  "Balances come from the [ledger design](../ledger/design.md).",
  "",
  "## Non-goals",
  "",
  "Payouts in currencies other than EUR. The seller MUST see each payout's status in the dashboard.",
  "",
].join("\r\n");

export const DESIGN = [
  "---",
  "type: design",
  "title: Ledger",
  "---",
  "",
  "# Ledger",
  "",
  "## Overview",
  "",
  "Every payout is a ledger entry; the balance is the sum of settled entries.",
  "",
].join("\n");

/** A folder holding the payouts and ledger bundles. */
export function payoutsFolder(): string {
  const root = mkdtempSync(join(tmpdir(), "sr-threads-"));
  mkdirSync(join(root, "payouts"));
  mkdirSync(join(root, "ledger"));
  writeFileSync(join(root, "payouts/prd.md"), PRD);
  writeFileSync(join(root, "ledger/design.md"), DESIGN);
  return root;
}

export async function docBySlug(
  t: TestApp,
  slug: string,
  headers: Record<string, string> = {},
): Promise<SpecDoc> {
  const list = await json<BundleList>(t.req("GET", "/bundles", undefined, headers));
  const doc = list.items.find((b) => b.slug === slug)?.docs[0];
  expect(doc, `bundle ${slug}`).toBeDefined();
  return doc!;
}

const enc = new TextEncoder();

/** The text anchor of `quote` (its `occurrence`-th match) in `text`, as a client computes it. */
export function textAnchor(file: string, text: string, quote: string, occurrence = 0) {
  let at = text.indexOf(quote);
  for (let n = occurrence; n > 0; n--) at = text.indexOf(quote, at + 1);
  expect(at).toBeGreaterThanOrEqual(0);
  const start = enc.encode(text.slice(0, at)).length;
  return {
    file,
    heading_path: [],
    quote,
    prefix: text.slice(Math.max(0, at - 32), at),
    suffix: text.slice(at + quote.length, at + quote.length + 32),
    start,
    end: start + enc.encode(quote).length,
  };
}

/** Write the spec doc as a new version through the API. */
export async function save(
  t: TestApp,
  doc: SpecDoc,
  text: string,
  headers: Record<string, string> = {},
): Promise<WriteResult> {
  const fresh = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`, undefined, headers));
  const res = await t.req(
    "PUT",
    `/docs/${doc.id}/files/content?path=${encodeURIComponent(fresh.path)}&base_version=${fresh.current_version.id}`,
    text,
    { "content-type": "application/octet-stream", ...headers },
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return json<WriteResult>(res);
}
