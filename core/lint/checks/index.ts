/**
 * Every check kind, in the order docs list them. A profile's `kind` names one of these.
 * Adding a kind: one module here exporting a `defineCheck(...)`, a line below, a page
 * in docs/checks/<kind>.md, a table test in test/core/lint/checks/, then regenerate
 * schemas/profile.schema.json (npx tsx scripts/generate-profile-schema.ts).
 */
import { assumptions } from "./assumptions.js";
import { codeExample } from "./code-example.js";
import { contradiction } from "./contradiction.js";
import { emptySection } from "./empty-section.js";
import { forbiddenPattern } from "./forbidden-pattern.js";
import { linksResolve } from "./links-resolve.js";
import { measurable } from "./measurable.js";
import { requiredFrontmatter } from "./required-frontmatter.js";
import { requiredPattern } from "./required-pattern.js";
import { requiredSection } from "./required-section.js";
import { rfc2119 } from "./rfc2119.js";
import { sectionOrder } from "./section-order.js";
import { traceId } from "./trace-id.js";
import { vagueQuantity } from "./vague-quantity.js";
import type { CheckKind } from "../types.js";

export const CHECK_KINDS: readonly CheckKind[] = [
  requiredSection,
  sectionOrder,
  emptySection,
  forbiddenPattern,
  requiredPattern,
  requiredFrontmatter,
  traceId,
  rfc2119,
  measurable,
  vagueQuantity,
  contradiction,
  linksResolve,
  assumptions,
  codeExample,
];

const byKind = new Map(CHECK_KINDS.map((k) => [k.kind, k]));

export function checkKind(kind: string): CheckKind | undefined {
  return byKind.get(kind);
}
