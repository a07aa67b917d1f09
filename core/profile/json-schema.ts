/** The JSON Schema of profile.yaml, derived from the zod schema (committed as schemas/profile.schema.json). */
import { z } from "zod";
import { ProfileSchema } from "./schema.js";

export function profileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ProfileSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return {
    $schema: schema["$schema"],
    title: "spec-review profile",
    description:
      "A document type: its checks, template, sizes, radar categories and review settings. See docs/profiles.md.",
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  };
}

/** The committed file's exact text: the schema as 2-space JSON with a final newline. */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}
