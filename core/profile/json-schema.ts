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
    $id: "https://spec-review.dev/schemas/profile.schema.json",
    title: "spec-review profile",
    description:
      "A document type: its checks, template, sizes, radar categories and review settings. See docs/profiles.md.",
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  };
}
