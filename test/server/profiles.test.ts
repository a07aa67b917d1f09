import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { Items } from "../helpers/types.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");
const PROFILES = resolve(import.meta.dirname, "../../profiles");

interface ProfileVersion {
  number: number;
  created_by: string;
  message: string;
}
interface Profile {
  key: string;
  title: string;
  builtin: boolean;
  bundles: number;
  current_version: ProfileVersion;
  yaml: string;
  template: string;
  versions: ProfileVersion[];
  maintainers: string[];
}

const adrYaml = readFileSync(resolve(PROFILES, "adr/profile.yaml"), "utf8");
const adrTemplate = readFileSync(resolve(PROFILES, "adr/template.md"), "utf8");
// A custom profile (the built-in `rfc` key is taken).
const rfcYaml = adrYaml
  .replace(/^key: adr$/m, "key: memo")
  .replace(/^title: .*$/m, "title: Request for comments");

describe.each(DB_KINDS)("profiles on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("lists the built-ins with their current version and how many bundles name each", async () => {
    const list = await json<Items<Profile>>(t.req("GET", "/profiles"));
    expect(list.items.map((p) => p.key)).toEqual([
      "adr",
      "api",
      "design",
      "kep",
      "madr",
      "nygard",
      "prd",
      "rfc",
    ]);
    const prd = list.items.find((p) => p.key === "prd")!;
    expect(prd).toMatchObject({
      builtin: true,
      bundles: 2,
      current_version: { number: 1, created_by: "builtin" },
    });
    const one = await json<Profile>(t.req("GET", "/profiles/adr"));
    expect(one.yaml).toBe(adrYaml);
    expect(one.template).toBe(adrTemplate);
    await problem(await t.req("GET", "/profiles/nope"), 404, "not_found");
  });

  it("creates, saves, diffs and rolls back a profile as versions", async () => {
    const created = await t.req("POST", "/profiles", { key: "memo", yaml: rfcYaml, template: adrTemplate });
    expect(created.status).toBe(201);
    const saved = await json<Profile>(
      t.req("PUT", "/profiles/memo", {
        yaml: rfcYaml.replace("Request for comments", "RFC"),
        template: adrTemplate,
        message: "Shorter title",
      }),
    );
    expect(saved).toMatchObject({ title: "RFC", current_version: { number: 2, message: "Shorter title" } });
    const same = await json<Profile>(
      t.req("PUT", "/profiles/memo", { yaml: saved.yaml, template: adrTemplate }),
    );
    expect(same.current_version.number).toBe(2);
    await problem(
      await t.req("PUT", "/profiles/memo", { yaml: rfcYaml, template: adrTemplate, base_version: 1 }),
      409,
      "version_conflict",
    );
    const diff = await json<{ yaml: string; template: string }>(
      t.req("GET", "/profiles/memo/diff?from=1&to=2"),
    );
    expect(diff.yaml).toContain("-title: Request for comments");
    expect(diff.yaml).toContain("+title: RFC");
    const back = await json<Profile>(t.req("POST", "/profiles/memo/rollback", { version: 1 }));
    expect(back.current_version).toMatchObject({ number: 3, message: "Rollback to version 1" });
    expect(back.yaml).toBe(rfcYaml);
    expect(back.versions.map((v) => v.number)).toEqual([3, 2, 1]);
    await problem(await t.req("POST", "/profiles/memo/rollback", { version: 9 }), 400, "bad_version");
    await problem(
      await t.req("POST", "/profiles", { key: "memo", yaml: rfcYaml, template: "" }),
      409,
      "profile_exists",
    );
  });

  it("refuses an invalid YAML with its line and column, saving nothing", async () => {
    const bad = await problem(
      await t.req("POST", "/profiles", { key: "bad", yaml: "key: bad\ntitle: [oops\n", template: "" }),
      400,
      "profile_invalid",
    );
    expect(String(bad.detail)).toMatch(/line \d+, column \d+/);
    const errors = bad.errors as Array<{ line: number; column: number }>;
    expect(errors[0]!.line).toBeGreaterThan(0);
    const unknownCheck = await problem(
      await t.req("PUT", "/profiles/adr", {
        yaml: adrYaml.replace("checks:", "checks:\n  - nonsense: 1"),
        template: "",
      }),
      400,
      "profile_invalid",
    );
    expect((unknownCheck.errors as unknown[]).length).toBeGreaterThan(0);
    const adr = await json<Profile>(t.req("GET", "/profiles/adr"));
    expect(adr.current_version.number).toBe(1);
    await problem(await t.req("GET", "/profiles/bad"), 404, "not_found");
  });

  it("refuses to delete a built-in or a profile a bundle names; deletes an unused one", async () => {
    await problem(await t.req("DELETE", "/profiles/prd"), 409, "profile_builtin");
    await t.req("POST", "/profiles", { key: "memo", yaml: rfcYaml, template: adrTemplate });
    const list = await json<{
      items: Array<{ docs: Array<{ id: string; current_version: { id: string } }> }>;
    }>(t.req("GET", "/bundles"));
    const doc = list.items[0]!.docs[0]!;
    await t.req("PUT", `/docs/${doc.id}/profile?base_version=${doc.current_version.id}`, { profile: "memo" });
    await problem(await t.req("DELETE", "/profiles/memo"), 409, "profile_in_use");
    const back = await json<{ version: { id: string } }>(
      t.req("GET", `/docs/${doc.id}`).then(async (r) => {
        const d = (await r.json()) as { current_version: { id: string } };
        return t.req("PUT", `/docs/${doc.id}/profile?base_version=${d.current_version.id}`, {
          profile: "prd",
        });
      }),
    );
    expect(back.version).toBeDefined();
    const del = await t.req("DELETE", "/profiles/memo");
    expect(del.status).toBe(204);
    await problem(await t.req("GET", "/profiles/memo"), 404, "not_found");
  });

  it("keeps a profile that extends a built-in short: the lint uses the parent's checks with the overrides", async () => {
    const yaml = [
      "key: team-adr",
      "title: Team ADR",
      "extends: adr",
      "checks:",
      "  - slug: decision",
      "    level: SHOULD",
      "",
    ].join("\n");
    const created = await t.req("POST", "/profiles", { key: "team-adr", yaml, template: adrTemplate });
    expect(created.status, await created.clone().text()).toBe(201);
    const got = await json<Profile & { extends?: string; resolved_yaml?: string }>(
      t.req("GET", "/profiles/team-adr"),
    );
    expect(got.yaml).toBe(yaml);
    expect(got.extends).toBe("adr");
    // The resolved profile holds the parent's other checks, and the override.
    const resolved = got.resolved_yaml ?? "";
    const parentSlugs = [...adrYaml.matchAll(/^ {2}- slug: (\S+)$/gm)].map((m) => m[1]!);
    expect(parentSlugs.length).toBeGreaterThan(3);
    for (const slug of parentSlugs) expect(resolved).toContain(`slug: ${slug}`);
    expect(resolved).toMatch(/slug: decision\n(?: {4}.*\n)*? {4}level: SHOULD/);
    // A parent that does not exist is refused with the key's place, nothing saved.
    await problem(
      await t.req("POST", "/profiles", {
        key: "orphan",
        yaml: yaml.replace("adr\n", "nosuch\n").replace("team-adr", "orphan"),
        template: "",
      }),
      400,
      "profile_invalid",
    );
    await problem(await t.req("GET", "/profiles/orphan"), 404, "not_found");
  });

  it("sets maintainers", async () => {
    const p = await json<Profile>(
      t.req("PUT", "/profiles/prd/maintainers", { maintainers: ["ana", "bo", "ana"] }),
    );
    expect(p.maintainers).toEqual(["ana", "bo"]);
  });

  it("guesses the profile of a doc from its headings", async () => {
    const adr = readFileSync(
      resolve(import.meta.dirname, "../../fixtures/examples/adr/0007-first-match-timestamp-for-digests.md"),
      "utf8",
    );
    const body = adr.replace(/^---\n[\s\S]*?\n---\n/, "");
    const guess = await json<{ profile_key?: string; candidates: Array<{ profile_key: string }> }>(
      t.req("POST", "/profiles/guess", { markdown: body }),
    );
    expect(guess.profile_key).toBe("adr");
    expect(guess.candidates[0]!.profile_key).toBe("adr");
    const none = await json<{ profile_key?: string }>(
      t.req("POST", "/profiles/guess", { markdown: "just words" }),
    );
    expect(none.profile_key).toBeUndefined();
  });

  it("suggests a link when exactly one other doc in the folder has the upstream type", async () => {
    const res = await json<{ items: Array<{ from: string; to: string; kind: string }> }>(
      t.req("POST", "/links/suggest", {
        docs: [
          { path: "x/prd.md", profile: "prd" },
          { path: "x/design.md", profile: "design" },
          { path: "x/notes.md", profile: "" },
          { path: "y/design.md", profile: "design" },
          { path: "y/a.md", profile: "prd" },
          { path: "y/b.md", profile: "prd" },
        ],
      }),
    );
    expect(res.items).toEqual([{ from: "x/design.md", to: "x/prd.md", kind: "implements" }]);
    const local = await json<{ items: Array<{ from: string; to: string }> }>(
      t.req("POST", "/links/suggest", {
        docs: [{ path: "checkout/design.md", profile: "design" }],
        local: true,
      }),
    );
    expect(local.items).toEqual([{ from: "checkout/design.md", to: "checkout/prd.md", kind: "implements" }]);
    await problem(await t.req("POST", "/links/suggest", { docs: "no" }), 400, "validation_failed");
  });
});
