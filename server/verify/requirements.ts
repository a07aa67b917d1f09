/**
 * The trace IDs a verification checks: those the bundle's main doc defines (by its
 * profile's ID scheme), each with its level and the line that defines it, and whether it
 * is inside the profile's verify prefixes (only those count toward the run's verdict).
 */
import { docDetail } from "../../core/trace/doc.js";
import type { Profile } from "../../core/profile/schema.js";

export interface Requirement {
  id: string;
  /** The statement that defines the ID (its first line). */
  text: string;
  /** `MUST`, `SHOULD` or `MAY`, from the statement's keywords (MUST when it has none). */
  level: string;
  /** Inside the profile's verify prefixes. */
  gated: boolean;
  /** The heading path of the section holding it. */
  section: string[];
}

/** The level an ID's statement is written at (RFC 2119 keywords; none: MUST). */
export function levelOf(text: string): string {
  if (/\b(MUST|SHALL|REQUIRED)\b/.test(text)) return "MUST";
  if (/\b(SHOULD|RECOMMENDED)\b/.test(text)) return "SHOULD";
  if (/\b(MAY|OPTIONAL)\b/.test(text)) return "MAY";
  return "MUST";
}

export function requirementsOf(text: string, file: string, profile: Profile | undefined): Requirement[] {
  const detail = docDetail(text, file, profile);
  const prefixes = new Set(profile?.verify_prefixes ?? []);
  return detail.ids.map((d) => ({
    id: d.id,
    text: d.text,
    level: levelOf(d.text),
    gated: prefixes.has(d.id.slice(0, d.id.indexOf("-"))),
    section: detail.sections[d.section - 1] ?? [],
  }));
}
