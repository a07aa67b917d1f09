/** Profiles: the doc types, their versions and maintainers, and a doc's profile. */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  createRouter,
  deps,
  errorResponses,
  jsonBody,
  jsonResponse,
  type Env,
  type Router,
} from "../../http.js";
import { ApiError } from "../../errors.js";
import { docVerdict } from "../../runs.js";
import { caller } from "../../auth/actor.js";
import {
  adoptFrontmatter,
  assumptions,
  decodeText,
  FrontmatterInvalidError,
} from "../../../core/lint/index.js";
import { parseMarkdown } from "../../../core/markdown/document.js";
import { setFrontmatterKeys } from "../../../core/markdown/frontmatter.js";
import { rankProfiles } from "../../../core/profile/index.js";
import { WriteResultSchema } from "../../schemas/common.js";
import { BaseVersionQuery, DocIdParams, ProfileKeyParams } from "../../schemas/params.js";
import {
  AdoptBodySchema,
  AssumptionsSchema,
  ChangeProfileBodySchema,
  GuessProfileBodySchema,
  InferProfileBodySchema,
  InferredProfileSchema,
  MaintainersBodySchema,
  NewProfileBodySchema,
  NewProfileThreadBodySchema,
  ProfileDiffQuery,
  ProfileDiffSchema,
  ProfileGuessSchema,
  ProfileListSchema,
  ProfileSchema,
  RollbackBodySchema,
  SaveProfileBodySchema,
} from "../../schemas/profiles.js";
import { ThreadListSchema, ThreadSchema } from "../../schemas/threads.js";
import { noContent } from "../stub.js";
import { authorOf } from "../../threads/service.js";
import { inferFromDocs } from "../../profile-infer.js";

const tags = ["profiles"];

export const adoptProfile = createRoute({
  method: "post",
  path: "/docs/{docId}/adopt",
  operationId: "adoptProfile",
  summary: "write the type and size the review used into the main doc's frontmatter",
  tags,
  request: {
    params: DocIdParams,
    query: BaseVersionQuery,
    body: { ...jsonBody(AdoptBodySchema), required: false },
  },
  responses: { 200: jsonResponse(WriteResultSchema, "The new version"), ...errorResponses },
});

export const changeDocProfile = createRoute({
  method: "put",
  path: "/docs/{docId}/profile",
  operationId: "changeDocProfile",
  summary: "change the profile of the bundle's main doc",
  tags,
  request: { params: DocIdParams, query: BaseVersionQuery, body: jsonBody(ChangeProfileBodySchema) },
  responses: { 200: jsonResponse(WriteResultSchema, "The new version"), ...errorResponses },
});

export const listAssumptions = createRoute({
  method: "get",
  path: "/docs/{docId}/assumptions",
  operationId: "listAssumptions",
  summary: "sentences of the current main doc that start with `Assumption:`",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(AssumptionsSchema, "Assumptions in document order"), ...errorResponses },
});

export const getProfile = createRoute({
  method: "get",
  path: "/profiles/{key}",
  operationId: "getProfile",
  summary: "a profile with its YAML, template, versions, maintainers",
  tags,
  request: { params: ProfileKeyParams },
  responses: { 200: jsonResponse(ProfileSchema, "The profile"), ...errorResponses },
});

export const saveProfile = createRoute({
  method: "put",
  path: "/profiles/{key}",
  operationId: "saveProfile",
  summary: "save a profile as a new version; maintainers of the profile and admins",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(SaveProfileBodySchema) },
  responses: { 200: jsonResponse(ProfileSchema, "The profile with its new version"), ...errorResponses },
});

export const deleteProfile = createRoute({
  method: "delete",
  path: "/profiles/{key}",
  operationId: "deleteProfile",
  summary: "delete a profile; admins only; refused for a built-in and while a bundle names its key",
  tags,
  request: { params: ProfileKeyParams },
  responses: { 204: noContent("Deleted"), ...errorResponses },
});

export const setProfileMaintainers = createRoute({
  method: "put",
  path: "/profiles/{key}/maintainers",
  operationId: "setProfileMaintainers",
  summary: "set the maintainers of a profile; admins only",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(MaintainersBodySchema) },
  responses: { 200: jsonResponse(ProfileSchema, "The profile"), ...errorResponses },
});

export const diffProfile = createRoute({
  method: "get",
  path: "/profiles/{key}/diff",
  operationId: "diffProfile",
  summary: "YAML diff and template diff between two versions",
  tags,
  request: { params: ProfileKeyParams, query: ProfileDiffQuery },
  responses: { 200: jsonResponse(ProfileDiffSchema, "The diffs"), ...errorResponses },
});

export const rollbackProfile = createRoute({
  method: "post",
  path: "/profiles/{key}/rollback",
  operationId: "rollbackProfile",
  summary: "write a new version whose text equals an earlier one",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(RollbackBodySchema) },
  responses: { 200: jsonResponse(ProfileSchema, "The profile with its new version"), ...errorResponses },
});

export const listProfileThreads = createRoute({
  method: "get",
  path: "/profiles/{key}/threads",
  operationId: "listProfileThreads",
  summary: "suggestions for a profile, as threads on its checks",
  tags,
  request: { params: ProfileKeyParams },
  responses: { 200: jsonResponse(ThreadListSchema, "Threads, open first"), ...errorResponses },
});

export const suggestProfileChange = createRoute({
  method: "post",
  path: "/profiles/{key}/threads",
  operationId: "suggestProfileChange",
  summary: "suggest a change to a check, the template or a limit",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(NewProfileThreadBodySchema) },
  responses: { 201: jsonResponse(ThreadSchema, "The new thread"), ...errorResponses },
});

export const listProfiles = createRoute({
  method: "get",
  path: "/profiles",
  operationId: "listProfiles",
  summary: "list profiles with current versions",
  tags,
  responses: { 200: jsonResponse(ProfileListSchema, "Profiles"), ...errorResponses },
});

export const createProfile = createRoute({
  method: "post",
  path: "/profiles",
  operationId: "createProfile",
  summary: "create a profile for a new doc type; admins only",
  tags,
  request: { body: jsonBody(NewProfileBodySchema) },
  responses: { 201: jsonResponse(ProfileSchema, "The new profile"), ...errorResponses },
});

export const guessProfile = createRoute({
  method: "post",
  path: "/profiles/guess",
  operationId: "guessProfile",
  summary: "the profile that fits a markdown doc, from its headings",
  tags,
  request: { body: jsonBody(GuessProfileBodySchema) },
  responses: { 200: jsonResponse(ProfileGuessSchema, "The best fit and the candidates"), ...errorResponses },
});

export const inferProfileRoute = createRoute({
  method: "post",
  path: "/profiles/infer",
  operationId: "inferProfile",
  summary: "learn a profile from a team's existing docs: a folder of the served tree or a repohost source",
  tags,
  request: { body: jsonBody(InferProfileBodySchema) },
  responses: {
    200: jsonResponse(
      InferredProfileSchema,
      "The learned profile, what it learned and the docs that did not fit",
    ),
    ...errorResponses,
  },
});

/** The main doc's text at the current version, and what its latest lint run guessed. */
async function mainDoc(c: Context<Env>, docId: string) {
  const { store, runs } = deps(c);
  const bundleId = await store.bundleIdOfDoc(docId);
  await store.refreshBundle(bundleId);
  await runs.settled(docId);
  const row = await store.doc(docId);
  const { bytes } = await store.fileBytes(row.head.id, row.doc.path);
  const { text, invalid } = decodeText(bytes);
  if (invalid) throw new ApiError("validation_failed", `${row.doc.path} is not UTF-8 text`);
  return { row, text, run: (await runs.latestRuns([docId])).get(docId) };
}

/** Write the main doc as a new version and answer with the version and its verdict. */
async function saveMainDoc(
  c: Context<Env>,
  docId: string,
  base: string,
  path: string,
  text: string,
  message: string,
) {
  const { store, runs } = deps(c);
  const result = await store.write(
    docId,
    base,
    [{ path, bytes: new TextEncoder().encode(text) }],
    caller(c).id,
    message,
  );
  const run = await runs.lintVersion(
    await store.bundleIdOfDoc(docId),
    docId,
    result.version.id,
    result.version.number,
  );
  const verdict = docVerdict(run, result.version.number);
  return verdict ? { ...result, verdict } : result;
}

/** Verdicts follow the profile: lint the docs that name it again, in the background. */
function relint(c: Context<Env>, key: string): void {
  const { runs, logger } = deps(c);
  runs
    .relintProfile(key)
    .catch((err: unknown) =>
      logger.error("re-lint after a profile change failed", { key, error: String(err) }),
    );
}

function knownProfile(c: Context<Env>, key: string) {
  const profile = deps(c).profiles.get(key);
  if (!profile) {
    const keys = deps(c)
      .profiles.list()
      .map((p) => p.key)
      .join(", ");
    throw new ApiError("unknown_profile", `no profile ${key}; profiles: ${keys}`);
  }
  return profile;
}

export default function profileRoutes(): Router {
  const r = createRouter();
  r.openapi(adoptProfile, async (c) => {
    const { docId } = c.req.valid("param");
    const { base_version } = c.req.valid("query");
    const body = c.req.valid("json") as { keys?: Array<"type" | "size"> } | undefined;
    const keys = body?.keys ?? ["type", "size"];
    const { row, text, run } = await mainDoc(c, docId);
    const guessed = run?.versionNumber === row.head.number ? run.adopt : null;
    const adopt: { type?: string; size?: string } = {};
    for (const k of keys)
      if ((k === "type" || k === "size") && guessed?.[k] !== undefined) adopt[k] = guessed[k];
    if (Object.keys(adopt).length === 0)
      throw new ApiError("nothing_to_adopt", "the doc already names its type and size; nothing to write");
    let next: string;
    try {
      next = adoptFrontmatter(text, adopt);
    } catch (err) {
      if (err instanceof FrontmatterInvalidError)
        throw new ApiError("validation_failed", `cannot write into the frontmatter: ${err.message}`);
      throw err;
    }
    const words = Object.entries(adopt)
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ");
    return c.json(await saveMainDoc(c, docId, base_version, row.doc.path, next, `Adopt ${words}`), 200);
  });

  r.openapi(changeDocProfile, async (c) => {
    const { docId } = c.req.valid("param");
    const { base_version } = c.req.valid("query");
    const { profile } = c.req.valid("json");
    knownProfile(c, profile);
    const { row, text } = await mainDoc(c, docId);
    let next: string;
    try {
      next = setFrontmatterKeys(text, { type: profile });
    } catch (err) {
      throw new ApiError(
        "validation_failed",
        `cannot write into the frontmatter: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return c.json(
      await saveMainDoc(c, docId, base_version, row.doc.path, next, `Change type to ${profile}`),
      200,
    );
  });

  r.openapi(listAssumptions, async (c) => {
    const { docId } = c.req.valid("param");
    const { row, text } = await mainDoc(c, docId);
    return c.json({ items: assumptions(parseMarkdown(text), row.doc.path) }, 200);
  });

  r.openapi(guessProfile, (c) => {
    const { markdown } = c.req.valid("json");
    const ranked = rankProfiles(markdown, deps(c).profiles.list());
    const candidates = ranked.map((g) => ({ profile_key: g.key, score: g.score, matched: g.matched }));
    const best = ranked[0];
    return c.json(best ? { profile_key: best.key, candidates } : { candidates }, 200);
  });

  r.openapi(inferProfileRoute, async (c) =>
    c.json(await inferFromDocs(deps(c), caller(c), c.req.valid("json")), 200),
  );

  r.openapi(listProfiles, async (c) => c.json({ items: await deps(c).profiles.summaries() }, 200));

  r.openapi(createProfile, async (c) => {
    const { key, yaml, template, message } = c.req.valid("json");
    return c.json(await deps(c).profiles.create(key, yaml, template, caller(c).id, message), 201);
  });

  r.openapi(getProfile, async (c) => c.json(await deps(c).profiles.detail(c.req.valid("param").key), 200));

  r.openapi(saveProfile, async (c) => {
    const { key } = c.req.valid("param");
    const { yaml, template, message, base_version } = c.req.valid("json");
    const saved = await deps(c).profiles.save(key, yaml, template, caller(c).id, {
      message,
      base: base_version,
    });
    relint(c, key);
    return c.json(saved, 200);
  });

  r.openapi(deleteProfile, async (c) => {
    await deps(c).profiles.delete(c.req.valid("param").key);
    return c.body(null, 204);
  });

  r.openapi(setProfileMaintainers, async (c) => {
    const { key } = c.req.valid("param");
    return c.json(await deps(c).profiles.setMaintainers(key, c.req.valid("json").maintainers), 200);
  });

  r.openapi(diffProfile, async (c) => {
    const { key } = c.req.valid("param");
    const { from, to } = c.req.valid("query");
    return c.json(await deps(c).profiles.diff(key, from, to), 200);
  });

  r.openapi(rollbackProfile, async (c) => {
    const { key } = c.req.valid("param");
    const back = await deps(c).profiles.rollback(key, c.req.valid("json").version, caller(c).id);
    relint(c, key);
    return c.json(back, 200);
  });

  // Suggestions as threads on a profile's checks (server/threads/service.ts).
  r.openapi(listProfileThreads, async (c) => {
    const { key } = c.req.valid("param");
    return c.json({ items: await deps(c).threads.listProfile(key) }, 200);
  });
  r.openapi(suggestProfileChange, async (c) => {
    const { key } = c.req.valid("param");
    return c.json(await deps(c).threads.openProfile(authorOf(caller(c)), key, c.req.valid("json")), 201);
  });
  return r;
}
