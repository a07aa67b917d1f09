import { describe, expect, it } from "vitest";
import { loadProfile, parseProfile, type ProfileSource } from "../../../core/profile/load.js";

const valid = `key: demo
title: Demo
radar:
  - key: structure
    title: Structure
checks:
  - slug: goals
    kind: required-section
    level: MUST
    category: structure
    params: { section: Goals }
`;

describe("parseProfile", () => {
  it("parses a valid profile and fills defaults", () => {
    const r = parseProfile(valid);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.profile.checks[0]!.params).toEqual({ section: "Goals", min_words: 2 });
    expect(r.profile.checks[0]!.relaxed).toBe(false);
    expect(r.profile.sizes).toEqual({ default: "standard", values: [{ key: "standard", skip: [] }] });
    expect(r.profile.waivers).toEqual({ approvals: 1, allow_must: true, approvers: "members" });
    expect(r.profile.template).toBe("template.md");
  });

  const cases: { name: string; yaml: string; errors: { line: number; column: number; message: RegExp }[] }[] =
    [
      {
        name: "YAML syntax error",
        yaml: "key: demo\ntitle: x\n  bad: indent\n",
        errors: [
          { line: 2, column: 8, message: /nested mappings/i },
          { line: 2, column: 8, message: /single line/i },
        ],
      },
      {
        name: "unknown check kind, at the kind",
        yaml: valid.replace("kind: required-section", "kind: nope"),
        errors: [{ line: 8, column: 11, message: /checks\.0\.kind: unknown check kind/ }],
      },
      {
        name: "bad params, at the params",
        yaml: valid.replace("params: { section: Goals }", "params: { section: Goals, min_words: -1 }"),
        errors: [{ line: 11, column: 42, message: /checks\.0\.params\.min_words/ }],
      },
      {
        name: "unknown key, at the key",
        yaml: `${valid}colour: blue\n`,
        errors: [{ line: 12, column: 1, message: /unknown key: colour/ }],
      },
      {
        name: "category that is not a radar key",
        yaml: valid.replace("category: structure", "category: nope"),
        errors: [{ line: 10, column: 15, message: /category 'nope' is not a radar key/ }],
      },
      {
        name: "a size skipping an unknown check",
        yaml: `${valid}sizes:\n  default: small\n  values:\n    - key: small\n      skip: [ghost]\n`,
        errors: [{ line: 16, column: 14, message: /no check with slug 'ghost'/ }],
      },
      { name: "not a mapping", yaml: "- a\n- b\n", errors: [{ line: 1, column: 1, message: /mapping/ }] },
    ];
  it.each(cases)("$name", ({ yaml, errors }) => {
    const r = parseProfile(yaml);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(errors.length);
    errors.forEach((e, i) => {
      expect(r.errors[i]).toMatchObject({ line: e.line, column: e.column });
      expect(r.errors[i]!.message).toMatch(e.message);
    });
  });

  it("requires the key to equal the folder name", () => {
    const r = parseProfile(valid, { key: "other", file: "other/profile.yaml" });
    expect(r).toMatchObject({
      ok: false,
      errors: [{ line: 1, column: 6, path: "key", file: "other/profile.yaml" }],
    });
  });
});

describe("loadProfile", () => {
  const source = (files: Record<string, string>): ProfileSource => ({
    keys: () => [...new Set(Object.keys(files).map((f) => f.split("/")[0]!))].sort(),
    read: (key, file) => files[`${key}/${file}`],
  });

  it("loads the YAML and the template through the source", () => {
    const r = loadProfile(source({ "demo/profile.yaml": valid, "demo/template.md": "# T\n" }), "demo");
    expect(r.ok && r.profile.templateText).toBe("# T\n");
  });

  it("reports a missing template", () => {
    const r = loadProfile(source({ "demo/profile.yaml": valid }), "demo");
    expect(r).toMatchObject({ ok: false, errors: [{ path: "template", file: "demo/profile.yaml" }] });
  });
});
