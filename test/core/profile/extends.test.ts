/** `extends: <key>`: a short profile over another, resolved when it loads (docs/profiles.md). */
import { describe, expect, it } from "vitest";
import { parseProfile, type ParentResolver } from "../../../core/profile/load.js";

const base = `key: adr
title: Decision record
heading_hints: [Context, Decision, Consequences]
radar:
  - key: completeness
    title: Completeness
  - key: clarity
    title: Clarity
sizes:
  default: standard
  values:
    - key: small
      max_words: 300
      skip: [consequences]
    - key: standard
checks:
  - slug: decision
    kind: required-section
    level: MUST
    category: completeness
    params: { section: "Decision|Decision outcome", min_words: 5 }
  - slug: consequences
    kind: required-section
    level: SHOULD
    category: completeness
    params: { section: Consequences }
  - slug: hedging
    kind: forbidden-pattern
    level: SHOULD
    category: clarity
    params: { phrases: [maybe, perhaps] }
`;

const parents: Record<string, string> = { adr: base };
const parent: ParentResolver = (key) =>
  parents[key] === undefined
    ? undefined
    : { yaml: parents[key], file: `built-in/${key}/profile.yaml`, template: `# ${key} template\n` };

const parse = (yaml: string, key = "team-adr") =>
  parseProfile(yaml, { key, file: `${key}/profile.yaml`, parent });

describe("extends", () => {
  it("overrides one field of a check and merges its params key by key", () => {
    const r = parse(`key: team-adr
title: Our ADRs
extends: adr
checks:
  - slug: decision
    level: SHOULD
    params: { min_words: 12 }
`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.profile.extends).toBe("adr");
    expect(r.profile.title).toBe("Our ADRs");
    expect(r.profile.checks.map((c) => c.slug)).toEqual(["decision", "consequences", "hedging"]);
    const decision = r.profile.checks[0]!;
    expect(decision).toMatchObject({ kind: "required-section", level: "SHOULD", category: "completeness" });
    expect(decision.params).toMatchObject({ section: "Decision|Decision outcome", min_words: 12 });
    // Inherited as they are: the radar, the sizes, the hints and the parent's template.
    expect(r.profile.radar.map((x) => x.key)).toEqual(["completeness", "clarity"]);
    expect(r.profile.sizes.values.map((v) => v.key)).toEqual(["small", "standard"]);
    expect(r.profile.heading_hints).toEqual(["Context", "Decision", "Consequences"]);
    expect(r.profile.templateText).toBe("# adr template\n");
  });

  it("removes a disabled check and appends a new one; heading_hints given replace the parent's", () => {
    const r = parse(`key: team-adr
title: Our ADRs
extends: adr
heading_hints: [Status, Decision]
checks:
  - slug: hedging
    disabled: true
  - slug: status-line
    kind: required-frontmatter
    level: SHOULD
    category: completeness
    params: { key: status }
`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.profile.checks.map((c) => c.slug)).toEqual(["decision", "consequences", "status-line"]);
    expect(r.profile.heading_hints).toEqual(["Status", "Decision"]);
  });

  it("takes the folder name as the key when the child gives none, and keeps its own template", () => {
    const r = parseProfile("title: Ours\nextends: adr\n", {
      key: "ours",
      parent,
      templateText: "# ours\n",
    });
    expect(r.ok && r.profile.key).toBe("ours");
    expect(r.ok && r.profile.templateText).toBe("# ours\n");
  });

  it("is an error, at `extends`, when the parent is unknown", () => {
    const r = parse("key: team-adr\ntitle: Ours\nextends: nope\n");
    expect(r).toMatchObject({
      ok: false,
      errors: [{ path: "extends", line: 3, column: 10, file: "team-adr/profile.yaml" }],
    });
    if (!r.ok) expect(r.errors[0]!.message).toMatch(/no profile 'nope' to extend/);
  });

  it("is an error when extends leads back to the profile (a cycle)", () => {
    parents["a"] = "key: a\ntitle: A\nextends: b\n";
    parents["b"] = "key: b\ntitle: B\nextends: a\n";
    const cycle: ParentResolver = (key) =>
      parents[key] === undefined ? undefined : { yaml: parents[key], file: `${key}/profile.yaml` };
    const r = parseProfile(parents["a"], { key: "a", file: "a/profile.yaml", parent: cycle });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0]).toMatchObject({ path: "extends", line: 3 });
      expect(r.errors[0]!.message).toMatch(/leads back to this profile/);
    }
  });

  it("points an error in a child's check at the child's entry, and a disabled unknown slug at its slug", () => {
    const bad = parse(`key: team-adr
title: Ours
extends: adr
checks:
  - slug: decision
    level: MAYBE
`);
    expect(bad).toMatchObject({ ok: false, errors: [{ line: 6, path: "checks.0.level" }] });
    const ghost = parse(`key: team-adr
title: Ours
extends: adr
checks:
  - slug: ghost
    disabled: true
`);
    expect(ghost.ok).toBe(false);
    if (!ghost.ok) {
      expect(ghost.errors[0]).toMatchObject({ line: 5, path: "checks.0.slug" });
      expect(ghost.errors[0]!.message).toMatch(/no check 'ghost' to disable/);
    }
    // A disabled check a size still skips: the resolved profile validates as any other.
    const skipped = parse(`key: team-adr
title: Ours
extends: adr
checks:
  - slug: consequences
    disabled: true
`);
    expect(skipped.ok).toBe(false);
    if (!skipped.ok) expect(skipped.errors[0]!.message).toMatch(/no check with slug 'consequences'/);
  });

  it("does not load without a way to find the parent", () => {
    const r = parseProfile("key: x\ntitle: X\nextends: adr\n");
    expect(r.ok).toBe(false);
  });
});
