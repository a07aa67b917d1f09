/**
 * Writes schemas/profile.schema.json from the zod profile schema (core/profile/schema.ts),
 * formatted by prettier like every other file. Run after changing the profile format or
 * a check kind's options:
 *   npx tsx scripts/generate-profile-schema.ts
 * test/core/profile/json-schema.test.ts fails while the committed file is stale.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { profileJsonSchemaText } from "../core/profile/json-schema.js";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "schemas", "profile.schema.json");
const options = (await resolveConfig(out)) ?? {};
writeFileSync(out, await format(profileJsonSchemaText(), { ...options, filepath: out }));
process.stdout.write(`wrote ${out}\n`);
