/**
 * What a pull request touches, read as GitHub pages and caps it (app/pr-files.ts), with
 * Probot's own Octokit against the fake GitHub Enterprise Server over real HTTP: pages
 * followed by their `Link` header (a short page is not the last), a list at GitHub's
 * 3,000-file cap completed from the compare or the commits' files, and a truncated tree
 * replaced by the commit's archive.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProbotOctokit } from "probot";
import { commitFiles, pullFiles } from "../../app/pr-files.js";
import { GitHubApi } from "../../server/repohost/github.js";
import { FakeGitHub, gitBlobSha, type FakeRepo } from "../helpers/fake-github.js";

const TOKEN = "ghs_installation_7";

describe("a pull request's files", () => {
  const gh = new FakeGitHub();
  let repo: FakeRepo;
  let octokit: InstanceType<typeof ProbotOctokit>;
  let base: string;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });
  beforeEach(() => {
    gh.calls.length = 0;
    gh.repos.clear();
    gh.shortPagesBy = 0;
    gh.truncateTrees = false;
    repo = gh.addRepo("acme", "specs", { installationId: 7 });
    base = gh.commit(repo, { "specs/a/prd.md": "---\ntype: prd\n---\n# A\n", "README.md": "# R\n" });
    octokit = new ProbotOctokit({
      auth: { token: TOKEN },
      baseUrl: `${gh.url}/api/v3`,
      throttle: { enabled: false },
      retry: { enabled: false },
    });
  });

  const repoClient = () =>
    Promise.resolve(new GitHubApi({ baseUrl: `${gh.url}/api/v3`, token: () => Promise.resolve(TOKEN) }));

  function pull(n: number, files: Record<string, string>): { number: number; head: string } {
    repo.branches.set(`pr-${n}`, base);
    const head = gh.commit(repo, files, { branch: `pr-${n}` });
    repo.pulls.set(n, { files: Object.keys(files), head });
    return { number: n, head };
  }

  it("follows Link from page to page: a short page is not the last", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 250; i++) files[`specs/a/data/${i}.txt`] = `${i}\n`;
    const pr = pull(1, files);
    gh.shortPagesBy = 3; // pages of 97 when 100 are asked
    const out = await pullFiles(octokit, { owner: "acme", repo: "specs", number: 1, headSha: pr.head });
    expect(out.sort()).toEqual(Object.keys(files).sort());
    const pages = gh.calls.filter((c) => c.path.startsWith("/repos/acme/specs/pulls/1/files"));
    expect(pages).toHaveLength(3);
  });

  it("past the 3,000-file cap, the compare of the merge base and head says; cut short too, the commits' files", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3100; i++) files[`specs/a/data/${i}.txt`] = `${i}\n`;
    const pr = pull(2, files);
    const out = await pullFiles(
      octokit,
      { owner: "acme", repo: "specs", number: 2, headSha: pr.head, baseSha: base },
      repoClient,
    );
    // 3,000 listed, 300 in the compare: both cut short, so the two commits' files decide.
    expect(out.length).toBe(3100);
    expect(new Set(out)).toEqual(new Set(Object.keys(files)));
    const paths = gh.calls.map((c) => c.path.replace(/[0-9a-f]{40}/g, "<sha>").replace(/\?.*$/, ""));
    expect(paths).toContain("/repos/acme/specs/compare/<sha>...<sha>");
    expect(paths.filter((p) => p === "/repos/acme/specs/git/trees/<sha>")).toHaveLength(2);
  });

  it("past the cap with a compare that is whole: the compare's files", async () => {
    const files: Record<string, string> = { "specs/a/prd.md": "---\ntype: prd\n---\n# A2\n" };
    const pr = pull(3, files);
    // The fake lists what it is told: a list of 3,000 (GitHub's cap) for a change of one file.
    repo.pulls.get(3)!.files = Array.from({ length: 3000 }, () => "specs/a/prd.md");
    const out = await pullFiles(octokit, { owner: "acme", repo: "specs", number: 3, headSha: pr.head });
    expect(out).toEqual(["specs/a/prd.md"]);
    expect(gh.calls.some((c) => c.path === "/repos/acme/specs/pulls/3")).toBe(true);
  });

  it("a truncated tree is never taken as whole: the commit's archive lists its files", async () => {
    gh.truncateTrees = true;
    const files = await commitFiles(octokit, { owner: "acme", repo: "specs" }, base, repoClient);
    expect(files.sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
      { path: "README.md", sha: gitBlobSha("# R\n") },
      { path: "specs/a/prd.md", sha: gitBlobSha("---\ntype: prd\n---\n# A\n") },
    ]);
    await expect(commitFiles(octokit, { owner: "acme", repo: "specs" }, base)).rejects.toThrow(/truncated/);
  });
});
