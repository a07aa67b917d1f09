import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { profileJsonSchema } from "../../../core/profile/json-schema.js";
import { packageRoot } from "../../../server/paths.js";

describe("schemas/profile.schema.json", () => {
  it("is up to date with the zod schema (run: npx tsx scripts/generate-profile-schema.ts)", () => {
    const committed: unknown = JSON.parse(
      readFileSync(join(packageRoot(), "schemas", "profile.schema.json"), "utf8"),
    );
    expect(committed).toEqual(profileJsonSchema());
  });

  it("describes every check kind with its params", () => {
    const schema = profileJsonSchema() as {
      properties: { checks: { items: { oneOf?: unknown[]; anyOf?: unknown[] } } };
    };
    const variants = JSON.stringify(schema.properties.checks.items);
    for (const kind of [
      "required-section",
      "forbidden-pattern",
      "trace-id",
      "rfc2119",
      "links-resolve",
      "assumptions",
    ])
      expect(variants).toContain(`"const":"${kind}"`);
  });
});
