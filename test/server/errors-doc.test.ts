/** docs/errors.md lists every code of ERROR_CODES with its status, and no code that is not one. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../server/errors.js";

const doc = readFileSync(resolve(import.meta.dirname, "../../docs/errors.md"), "utf8");

/** Rows of the codes table: `| \`code\` | status | when |`. */
function documentedCodes(markdown: string): Map<string, { status: number; when: string }> {
  const rows = new Map<string, { status: number; when: string }>();
  for (const m of markdown.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|(.*)\|\s*$/gm)) {
    rows.set(m[1]!, { status: Number(m[2]), when: m[3]!.trim() });
  }
  return rows;
}

describe("docs/errors.md", () => {
  const rows = documentedCodes(doc);

  it("has a row for every code, with its status and when it happens", () => {
    const missing = Object.keys(ERROR_CODES).filter((code) => !rows.has(code));
    expect(missing, "add a row to docs/errors.md for each").toEqual([]);
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(rows.get(code)?.status, code).toBe(status);
      expect(rows.get(code)?.when.length, code).toBeGreaterThan(10);
    }
  });

  it("lists no code the server does not have", () => {
    expect([...rows.keys()].filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });
});
