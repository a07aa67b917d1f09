/**
 * The dashboard's typed client is generated from the server's OpenAPI document
 * (`npm run gen:web-client`) and checked in: this fails when a route or schema changed and
 * web/src/api/schema.d.ts was not regenerated, so the dashboard never compiles against an
 * API the server no longer has.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, webClientSchema } from "../../scripts/gen-web-client.js";

describe("the dashboard's generated API types", () => {
  it("match the OpenAPI document of this checkout (run `npm run gen:web-client` when this fails)", async () => {
    const fresh = await webClientSchema();
    const checkedIn = readFileSync(SCHEMA_FILE, "utf8");
    // Compared as a whole; a mismatch names the first differing line to keep the message readable.
    if (fresh !== checkedIn) {
      const a = checkedIn.split("\n");
      const b = fresh.split("\n");
      const at = b.findIndex((line, i) => line !== a[i]);
      expect.fail(
        `web/src/api/schema.d.ts is stale at line ${at + 1}: has ${JSON.stringify(a[at])}, the API gives ${JSON.stringify(b[at])}; run npm run gen:web-client`,
      );
    }
    expect(fresh).toContain('"/bundles": {');
    expect(fresh).toContain('"/runs/{runId}/events": {');
  });
});
