/**
 * POST /profiles/infer (docs/api-decisions.md, "Learning a profile"): a profile learned from
 * a folder of proposals as teams write them (no frontmatter; a header list with the status,
 * Introduction / Motivation / Proposed solution / Detailed design / Alternatives
 * considered), in local mode from a folder of the served tree and in hosted mode from a
 * repohost source (a fake GitHub): the learned elements with their shares, the folder's
 * README as a misfit, the types glob; `save` writing the profile and the config and the
 * docs becoming bundles of it; paths outside the served folder refused; who may call it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { as, testAuthenticator } from "../helpers/actors.js";
import { FakeGitHub, type FakeRepo } from "../helpers/fake-github.js";

interface Inferred {
  key: string;
  profile_yaml: string;
  template: string;
  elements: Array<{ kind: string; name: string; share: number; detail?: string }>;
  misfits: Array<{ path: string; why: string }>;
  types: Record<string, string>;
  docs_read: number;
  saved: boolean;
  written?: string[];
}

const TOPICS: Array<[string, string, string]> = [
  ["0001", "Saved searches", "Accepted"],
  ["0002", "Bulk export", "Implemented"],
  ["0003", "Rate limits per team", "Accepted"],
  ["0004", "Audit log retention", "Rejected"],
  ["0005", "Webhook retries", "Implemented"],
];

/** A proposal as teams write them: no frontmatter, a header list, the usual sections. */
export function proposal(num: string, title: string, status: string): string {
  const slug = title.toLowerCase().replace(/\s+/g, "-");
  return [
    `# ${title}`,
    "",
    `* Proposal: [LP-${num}](${num}-${slug}.md)`,
    "* Authors: [Lee Park](https://github.com/leepark)",
    `* Status: **${status}**`,
    `* Review: ([discussion](https://forums.example.org/t/${slug}/${Number(num) + 100}))`,
    "",
    "## Introduction",
    "",
    `This proposal adds ${title.toLowerCase()} to the service so that teams stop building it themselves.`,
    "",
    "## Motivation",
    "",
    `Teams asked for ${title.toLowerCase()} in 14 support tickets last quarter. Today each team writes`,
    "its own script against the API, and those scripts break whenever the API changes.",
    "",
    "## Proposed solution",
    "",
    `Add ${title.toLowerCase()} as a first-class feature with one endpoint and one setting per workspace.`,
    "",
    "## Detailed design",
    "",
    "The endpoint takes a JSON body and answers 202 with the job id. A worker picks the job up",
    "within 5 seconds and writes the result to the job record; a client polls the job record.",
    "",
    "```http",
    `POST /api/v1/${slug}`,
    "Content-Type: application/json",
    "",
    '{ "workspace_id": "w-1", "limit": 100 }',
    "```",
    "",
    "The job record keeps its result for 30 days, then it is deleted. Errors are problem+json",
    "with a stable code; a job that fails three times is marked failed and not retried.",
    "",
    "## Alternatives considered",
    "",
    "A client library was considered and left out: it would not help teams that use curl.",
    "",
  ].join("\n");
}

const fileOf = (num: string, title: string) => `${num}-${title.toLowerCase().replace(/\s+/g, "-")}`;

/** Each proposal in a folder of its own (`rfcs/0001-saved-searches/proposal.md`), with the folder's README. */
function writeProposalFolders(root: string, folder = "rfcs"): void {
  for (const [num, title, status] of TOPICS) {
    mkdirSync(join(root, folder, fileOf(num, title)), { recursive: true });
    writeFileSync(join(root, folder, fileOf(num, title), "proposal.md"), proposal(num, title, status));
  }
  writeFileSync(join(root, folder, "README.md"), "# RFCs\n\nOne folder per proposal.\n");
}

/** The folder `proposals/` of numbered proposals and its README. */
function writeProposals(root: string, folder = "proposals"): void {
  mkdirSync(join(root, folder), { recursive: true });
  for (const [num, title, status] of TOPICS)
    writeFileSync(join(root, folder, `${fileOf(num, title)}.md`), proposal(num, title, status));
  writeFileSync(
    join(root, folder, "README.md"),
    "# Proposals\n\nHow we propose changes. See the numbered files.\n",
  );
}

describe("POST /profiles/infer in local mode", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp();
    writeProposals(t.root);
    await t.local.scanAll();
  });
  afterEach(async () => {
    await t.close();
  });

  it("answers what it learned from a folder, with shares and misfits, and writes nothing", async () => {
    const res = await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "proposals" });
    expect(res.status).toBe(200);
    const r = await json<Inferred>(res);
    expect(r.key).toBe("team-proposal");
    expect(r.saved).toBe(false);
    expect(r.written).toBeUndefined();
    expect(r.docs_read).toBe(6);
    const sections = r.elements.filter((e) => e.kind === "section").map((e) => [e.name, e.share]);
    for (const name of ["Introduction", "Motivation", "Alternatives considered"])
      expect(sections).toContainEqual([name, 1]);
    const design = r.elements.filter((e) => e.kind === "design-section").map((e) => e.name);
    expect(design).toContain("Detailed design");
    expect(r.elements).toContainEqual(
      expect.objectContaining({ kind: "metadata", name: "Status", share: 1 }),
    );
    expect(r.elements).toContainEqual(expect.objectContaining({ kind: "id-pattern", name: "LP-NNNN" }));
    expect(r.misfits.map((m) => m.path)).toContain("proposals/README.md");
    expect(r.types).toEqual({ "proposals/[0-9]*.md": "team-proposal" });
    expect(r.profile_yaml).toMatch(/^key: team-proposal$/m);
    expect(r.profile_yaml).toContain("Detailed design");
    expect(r.template).toContain("## Motivation");
    expect(existsSync(join(t.root, ".spec-review"))).toBe(false);
    await problem(await t.req("GET", "/profiles/team-proposal"), 404, "not_found");
  });

  it("saves: writes the profile and the types, registers it, and the docs become bundles of it", async () => {
    writeProposalFolders(t.root);
    await t.local.scanAll();
    const r = await json<Inferred>(
      t.req("POST", "/profiles/infer", {
        key: "team-proposal",
        folder: "rfcs/",
        title: "Team proposal",
        save: true,
      }),
    );
    expect(r.saved).toBe(true);
    expect(r.types).toEqual({ "rfcs/**/proposal.md": "team-proposal" });
    expect(r.written).toEqual([
      ".spec-review/profiles/team-proposal/profile.yaml",
      ".spec-review/profiles/team-proposal/template.md",
      ".spec-review/config.yaml",
    ]);
    const dir = join(t.root, ".spec-review", "profiles", "team-proposal");
    expect(readFileSync(join(dir, "profile.yaml"), "utf8")).toBe(r.profile_yaml);
    expect(readFileSync(join(dir, "template.md"), "utf8")).toBe(r.template);
    expect(readFileSync(join(t.root, ".spec-review", "config.yaml"), "utf8")).toMatch(
      /types:\n\s+rfcs\/\*\*\/proposal\.md: team-proposal/,
    );
    const profile = await json<{ title: string; current_version: { created_by: string } }>(
      t.req("GET", "/profiles/team-proposal"),
    );
    expect(profile.title).toBe("Team proposal");
    expect(profile.current_version.created_by).toBe("repository");
    // Scanned again at once: each proposal's folder is a bundle of the learned type.
    const list = await json<{
      items: Array<{ slug: string; docs: Array<{ path: string; profile_key: string }> }>;
    }>(t.req("GET", "/bundles"));
    const mapped = list.items.filter((b) => b.docs.some((d) => d.profile_key === "team-proposal"));
    expect(mapped.map((b) => b.slug).sort()).toEqual(
      TOPICS.map(([num, title]) => `rfcs/${fileOf(num, title)}`).sort(),
    );
    // The key is taken now: nothing is written again.
    await problem(
      await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "proposals", save: true }),
      409,
      "profile_exists",
    );
  });

  it("maps a flat folder of numbered docs by a glob that leaves its README out", async () => {
    const r = await json<Inferred>(
      t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "proposals", save: true }),
    );
    expect(r.types).toEqual({ "proposals/[0-9]*.md": "team-proposal" });
    expect(readFileSync(join(t.root, ".spec-review", "config.yaml"), "utf8")).toContain(
      "proposals/[0-9]*.md: team-proposal",
    );
    // A bundle holds one spec doc: the served tree says so of a folder holding five (docs/api-decisions.md).
    const list = await json<{ problems: Array<{ path: string; message: string }> }>(t.req("GET", "/bundles"));
    expect(list.problems.map((p) => p.path)).toContain("proposals");
  });

  it("extends a built-in when asked, and refuses a key a profile has", async () => {
    const r = await json<Inferred>(
      t.req("POST", "/profiles/infer", { key: "team-rfc", folder: "proposals", extends: "rfc" }),
    );
    expect(r.profile_yaml).toMatch(/^extends: rfc$/m);
    await problem(
      await t.req("POST", "/profiles/infer", { key: "team-rfc", folder: "proposals", extends: "nope" }),
      400,
      "unknown_profile",
    );
    await problem(
      await t.req("POST", "/profiles/infer", { key: "rfc", folder: "proposals", save: true }),
      409,
      "profile_exists",
    );
    expect(existsSync(join(t.root, ".spec-review"))).toBe(false);
  });

  it("refuses a folder outside the served tree, a missing one, a source, and a folder with nothing to learn", async () => {
    for (const folder of ["../proposals", "/etc", "proposals/../..", ".spec-review", "a\\b"])
      await problem(
        await t.req("POST", "/profiles/infer", { key: "team-proposal", folder }),
        400,
        "bad_path",
      );
    const outside = join(tmpdir(), `sr-infer-outside-${process.pid}`);
    writeProposals(outside, ".");
    symlinkSync(outside, join(t.root, "linked"));
    try {
      await problem(
        await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "linked" }),
        400,
        "bad_path",
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    await problem(
      await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "nowhere" }),
      404,
      "folder_not_found",
    );
    await problem(
      await t.req("POST", "/profiles/infer", {
        key: "team-proposal",
        folder: "proposals/0001-saved-searches.md",
      }),
      404,
      "folder_not_found",
    );
    await problem(
      await t.req("POST", "/profiles/infer", {
        key: "team-proposal",
        source_id: "0b0e9c1e-6d7a-4f5e-9a8b-0c1d2e3f4a5b",
      }),
      400,
      "infer_source",
    );
    await problem(await t.req("POST", "/profiles/infer", { key: "team-proposal" }), 400, "infer_source");
    await problem(
      await t.req("POST", "/profiles/infer", { key: "Team Proposal", folder: "proposals" }),
      400,
      "validation_failed",
    );
    mkdirSync(join(t.root, "empty"));
    writeFileSync(join(t.root, "empty", "notes.txt"), "not markdown\n");
    await problem(
      await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "empty" }),
      400,
      "no_docs_to_learn",
    );
  });

  it("refuses to save into a config.yaml that is not a mapping, writing nothing", async () => {
    mkdirSync(join(t.root, ".spec-review"));
    writeFileSync(join(t.root, ".spec-review", "config.yaml"), "- a list\n");
    await problem(
      await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "proposals", save: true }),
      409,
      "repo_config_invalid",
    );
    expect(existsSync(join(t.root, ".spec-review", "profiles"))).toBe(false);
    await problem(await t.req("GET", "/profiles/team-proposal"), 404, "not_found");
  });
});

describe("POST /profiles/infer in hosted mode", () => {
  const gh = new FakeGitHub();
  let t: TestApp;
  let repo: FakeRepo;

  beforeAll(async () => {
    await gh.start();
    repo = gh.addRepo("acme", "evolution", { private: true });
    const files: Record<string, string> = { "README.md": "# Evolution\n\nOur proposals.\n" };
    for (const [num, title, status] of TOPICS)
      files[`proposals/${num}-${title.toLowerCase().replace(/\s+/g, "-")}.md`] = proposal(num, title, status);
    gh.commit(repo, files, { message: "Proposals", author: "lee" });
    const auth = testAuthenticator();
    t = await makeTestApp({ mode: "hosted", auth, repohost: { apiUrl: `${gh.url}/api/v3` } });
    auth.bind(t.services);
    expect(
      (await t.req("PUT", "/admin/repohost", { token: "ghp_good_token_1234" }, as("admin"))).status,
    ).toBe(200);
    const res = await t.req("PUT", "/profiles/rfc/maintainers", { maintainers: ["u-maint"] }, as("admin"));
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await gh.stop();
  });

  it("lets admins and profile maintainers call it; members, viewers, guests and nobody are refused", async () => {
    const body = { key: "team-proposal", source_id: "0b0e9c1e-6d7a-4f5e-9a8b-0c1d2e3f4a5b" };
    await problem(await t.req("POST", "/profiles/infer", body), 401, "unauthenticated");
    await problem(await t.req("POST", "/profiles/infer", body, as("viewer")), 403, "forbidden");
    await problem(await t.req("POST", "/profiles/infer", body, as("member")), 403, "forbidden");
    // Past the permission check: the source is unknown.
    await problem(await t.req("POST", "/profiles/infer", body, as("maintainer")), 404, "not_found");
    await problem(await t.req("POST", "/profiles/infer", body, as("admin")), 404, "not_found");
    await problem(
      await t.req("POST", "/profiles/infer", { key: "team-proposal", folder: "proposals" }, as("admin")),
      400,
      "infer_source",
    );
  });

  it("learns from a source's docs; saving takes an admin and creates the profile", async () => {
    const src = await json<{ id: string }>(
      t.req("POST", "/repohost/sources", { url: "acme/evolution" }, as("admin")),
    );
    const r = await json<Inferred>(
      t.req("POST", "/profiles/infer", { key: "team-proposal", source_id: src.id }, as("maintainer")),
    );
    expect(r.docs_read).toBe(6);
    expect(r.elements).toContainEqual(
      expect.objectContaining({ kind: "section", name: "Motivation", share: 1 }),
    );
    expect(r.misfits.map((m) => m.path)).toContain("README.md");
    expect(r.types).toEqual({ "proposals/[0-9]*.md": "team-proposal" });
    expect(r.saved).toBe(false);
    await problem(
      await t.req(
        "POST",
        "/profiles/infer",
        { key: "team-proposal", source_id: src.id, save: true },
        as("maintainer"),
      ),
      403,
      "forbidden",
    );
    const saved = await json<Inferred>(
      t.req("POST", "/profiles/infer", { key: "team-proposal", source_id: src.id, save: true }, as("admin")),
    );
    expect(saved.saved).toBe(true);
    expect(saved.written).toBeUndefined();
    const profile = await json<{ yaml: string; current_version: { created_by: string } }>(
      t.req("GET", "/profiles/team-proposal", undefined, as("member")),
    );
    expect(profile.yaml).toBe(saved.profile_yaml);
    expect(profile.current_version.created_by).toBe("u-admin");
    await problem(
      await t.req(
        "POST",
        "/profiles/infer",
        { key: "team-proposal", source_id: src.id, save: true },
        as("admin"),
      ),
      409,
      "profile_exists",
    );
  });
});
