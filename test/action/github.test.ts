import nock from "nock";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ANNOTATION_BATCH,
  commentMarker,
  listChangedFiles,
  postCheckRun,
  upsertComment,
  type Annotation,
} from "../../action/github.js";
import { API, HEAD_SHA, REPO, client, fixture } from "./helpers.js";

const ref = { owner: "acme", repo: "product-specs" };

beforeAll(() => {
  nock.disableNetConnect();
});
beforeEach(() => {
  nock.cleanAll();
});
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
});

describe("listChangedFiles", () => {
  it("follows every page and keeps the old path of a rename", async () => {
    nock(API)
      .get(`${REPO}/pulls/42/files`)
      .query({ per_page: "100" })
      .reply(200, fixture("pulls.files.page1.json"), {
        link: `<${API}${REPO}/pulls/42/files?per_page=100&page=2>; rel="next", <${API}${REPO}/pulls/42/files?per_page=100&page=2>; rel="last"`,
      })
      .get(`${REPO}/pulls/42/files`)
      .query({ per_page: "100", page: "2" })
      .reply(200, fixture("pulls.files.page2.json"), {
        link: `<${API}${REPO}/pulls/42/files?per_page=100&page=1>; rel="first", <${API}${REPO}/pulls/42/files?per_page=100&page=1>; rel="prev"`,
      });
    expect(await listChangedFiles(client(), ref, 42)).toEqual([
      "README.md",
      "specs/checkout-api/api.md",
      "specs/checkout-api/flow.svg",
      "design/flow.svg",
      "specs/saved-searches/search-bar.png",
    ]);
  });
});

function annotations(n: number): Annotation[] {
  return Array.from({ length: n }, (_, i) => ({
    path: "specs/checkout-api/api.md",
    start_line: i + 1,
    end_line: i + 1,
    start_column: 1,
    end_column: 4,
    annotation_level: i % 3 === 0 ? "failure" : i % 3 === 1 ? "warning" : "notice",
    message: `finding ${i}`,
    title: "MUST endpoints",
  }));
}

const input = {
  name: "Build Ready",
  headSha: HEAD_SHA,
  conclusion: "failure" as const,
  title: "1 spec doc: 1 Not Build Ready, 0 Build Ready",
  summary: "the table",
};

describe("postCheckRun", () => {
  it("creates one completed check run when the annotations fit in one request", async () => {
    const bodies: unknown[] = [];
    nock(API)
      .post(`${REPO}/check-runs`, (body) => {
        bodies.push(body);
        return true;
      })
      .reply(201, fixture("check-run.created.json"));
    const posted = await postCheckRun(client(), ref, {
      ...input,
      annotations: annotations(3),
      detailsUrl: "https://github.com/acme/product-specs/actions/runs/1",
    });
    expect(posted).toEqual({
      id: 31415926535,
      url: "https://github.com/acme/product-specs/runs/31415926535",
    });
    expect(bodies).toEqual([
      {
        name: "Build Ready",
        head_sha: HEAD_SHA,
        details_url: "https://github.com/acme/product-specs/actions/runs/1",
        status: "completed",
        conclusion: "failure",
        output: { title: input.title, summary: "the table", annotations: annotations(3) },
      },
    ]);
  });

  it("sends no annotations key when there is none", async () => {
    let body: unknown;
    nock(API)
      .post(`${REPO}/check-runs`, (b) => {
        body = b;
        return true;
      })
      .reply(201, fixture("check-run.created.json"));
    await postCheckRun(client(), ref, { ...input, conclusion: "success", annotations: [] });
    expect(body).toEqual({
      name: "Build Ready",
      head_sha: HEAD_SHA,
      status: "completed",
      conclusion: "success",
      output: { title: input.title, summary: "the table" },
    });
  });

  it("sends more than 50 annotations in batches of 50 and completes with the last update", async () => {
    const all = annotations(2 * ANNOTATION_BATCH + 20);
    const created: Record<string, unknown>[] = [];
    const updates: Record<string, unknown>[] = [];
    nock(API)
      .post(`${REPO}/check-runs`, (b: Record<string, unknown>) => {
        created.push(b);
        return true;
      })
      .reply(201, { ...fixture<object>("check-run.created.json"), status: "in_progress", conclusion: null })
      .patch(`${REPO}/check-runs/31415926535`, (b: Record<string, unknown>) => {
        updates.push(b);
        return true;
      })
      .times(2)
      .reply(200, fixture("check-run.created.json"));
    await postCheckRun(client(), ref, { ...input, annotations: all });
    expect(created).toEqual([
      {
        name: "Build Ready",
        head_sha: HEAD_SHA,
        status: "in_progress",
        output: { title: input.title, summary: "the table", annotations: all.slice(0, 50) },
      },
    ]);
    expect(updates).toEqual([
      { output: { title: input.title, summary: "the table", annotations: all.slice(50, 100) } },
      {
        status: "completed",
        conclusion: "failure",
        output: { title: input.title, summary: "the table", annotations: all.slice(100) },
      },
    ]);
    for (const u of updates)
      expect((u["output"] as { annotations: unknown[] }).annotations.length).toBeLessThanOrEqual(50);
  });
});

describe("upsertComment", () => {
  const marker = commentMarker("Build Ready");

  it("edits the comment holding the marker, found on a later page, and creates none", async () => {
    let patched: unknown;
    nock(API)
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100" })
      .reply(200, [fixture<unknown[]>("issue-comments.json")[0]], {
        link: `<${API}${REPO}/issues/42/comments?per_page=100&page=2>; rel="next"`,
      })
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100", page: "2" })
      .reply(200, [fixture<unknown[]>("issue-comments.json")[1]])
      .patch(`${REPO}/issues/comments/2489007342`, (b) => {
        patched = b;
        return true;
      })
      .reply(200, fixture<unknown[]>("issue-comments.json")[1]);
    const body = `${marker}\nnew table`;
    const result = await upsertComment(client(), ref, 42, marker, body);
    expect(result).toEqual({
      action: "updated",
      id: 2489007342,
      url: "https://github.com/acme/product-specs/pull/42#issuecomment-2489007342",
    });
    expect(patched).toEqual({ body });
  });

  it("creates the comment when no comment holds the marker", async () => {
    let posted: unknown;
    nock(API)
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100" })
      .reply(200, [fixture<unknown[]>("issue-comments.json")[0]])
      .post(`${REPO}/issues/42/comments`, (b) => {
        posted = b;
        return true;
      })
      .reply(201, { ...fixture<object[]>("issue-comments.json")[1], id: 2489009999 });
    const body = `${marker}\nfirst table`;
    expect((await upsertComment(client(), ref, 42, marker, body)).action).toBe("created");
    expect(posted).toEqual({ body });
  });

  it("leaves an identical comment alone, and creates none when told not to", async () => {
    const existing = fixture<{ body: string }[]>("issue-comments.json")[1]!;
    nock(API).get(`${REPO}/issues/42/comments`).query({ per_page: "100" }).reply(200, [existing]);
    expect((await upsertComment(client(), ref, 42, marker, existing.body)).action).toBe("unchanged");
    nock(API).get(`${REPO}/issues/42/comments`).query({ per_page: "100" }).reply(200, []);
    expect(await upsertComment(client(), ref, 42, marker, `${marker}\nnothing`, false)).toEqual({
      action: "skipped",
    });
  });

  it("keys the marker by check name", () => {
    expect(commentMarker("Build Ready")).toBe("<!-- spec-review:build-ready Build%20Ready -->");
    expect(commentMarker("Specs")).not.toBe(marker);
  });
});
