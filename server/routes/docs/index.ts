import { createRoute, z } from "@hono/zod-openapi";
import { zipSync } from "fflate";
import { ApiError } from "../../errors.js";
import { createRouter, deps, errorResponses, jsonResponse } from "../../http.js";
import { htmlReport } from "../../report/export.js";
import { DocIdParams, SpecDocSchema, Uuid, VersionSchema, WriteResultSchema } from "../../schemas/common.js";
import { docView } from "../../views.js";
import { docVerdict } from "../../runs.js";
import type { WriteResult } from "../../store/types.js";
import type { Verdict } from "../../schemas/common.js";
import { caller } from "../../auth/actor.js";
import { safeRelativePath } from "../../store/paths.js";
import { VersionRef } from "../../schemas/params.js";
import { isText, mediaType } from "./media.js";
import type { Context } from "hono";
import type { Env } from "../../http.js";

const BaseVersion = Uuid.openapi({
  description: "id of the version the change is based on; a stale base fails with version_conflict",
});

const FileEntrySchema = z
  .object({
    path: z.string(),
    size: z.int(),
    sha256: z.string(),
    media_type: z.string(),
    text: z.boolean().openapi({ description: "true when the file is UTF-8 text" }),
  })
  .openapi("BundleFile");

const FileListSchema = z
  .object({ version: VersionSchema, items: z.array(FileEntrySchema) })
  .openapi("BundleFiles");

const VersionListSchema = z
  .object({ items: z.array(VersionSchema), next_cursor: z.string().optional() })
  .openapi("VersionList");

const DiffSchema = z
  .object({
    from: VersionSchema,
    to: VersionSchema,
    files: z.array(
      z.object({
        path: z.string(),
        change: z.enum(["added", "removed", "modified"]),
        binary: z.boolean(),
        additions: z.int(),
        deletions: z.int(),
        patch: z.string().optional().openapi({ description: "unified diff; absent for a binary file" }),
      }),
    ),
    main_doc: z.string().openapi({ description: "path of the spec doc the sections belong to" }),
    sections: z.array(
      z.object({
        heading_path: z.array(z.string()),
        change: z.enum(["added", "removed", "modified"]),
        additions: z.int(),
        deletions: z.int(),
        patch: z.string(),
      }),
    ),
  })
  .openapi("VersionDiff");

const PathQuery = z.object({
  path: z.string().min(1).openapi({ description: "file path inside the bundle" }),
});

async function current(c: Context<Env>, docId: string) {
  const { store } = deps(c);
  const bundleId = await store.bundleIdOfDoc(docId);
  await store.refreshBundle(bundleId);
  return { store, bundleId };
}

/** A save's answer carries the verdict of its lint run (the run is started by the save itself). */
async function withVerdict(
  c: Context<Env>,
  docId: string,
  result: WriteResult,
): Promise<WriteResult & { verdict?: Verdict }> {
  const { runs, store } = deps(c);
  const bundleId = await store.bundleIdOfDoc(docId);
  const run = await runs.lintVersion(bundleId, docId, result.version.id, result.version.number);
  const verdict = docVerdict(run, result.version.number);
  return verdict ? { ...result, verdict } : result;
}

export default function docRoutes() {
  const r = createRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/docs/{docId}",
      summary: "one spec doc",
      tags: ["docs"],
      request: { params: DocIdParams },
      responses: { 200: jsonResponse(SpecDocSchema, "The spec doc"), ...errorResponses },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { store } = await current(c, docId);
      const { runs } = deps(c);
      await runs.settled(docId); // the first lint of its current version, if one is running
      const run = (await runs.latestRuns([docId])).get(docId);
      const doc = docView(await store.doc(docId), run);
      // The caller's next action with its target ids (server/waivers/next-action.ts).
      const [withNext] = await deps(c).waivers.withNextActions(c.get("actor"), [doc], true);
      return c.json(withNext!, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/docs/{docId}/files",
      summary: "files of a bundle version; default is the current version",
      tags: ["files"],
      request: { params: DocIdParams, query: z.object({ version: VersionRef }) },
      responses: {
        200: jsonResponse(FileListSchema, "The files of the version, by path"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { store, bundleId } = await current(c, docId);
      const version = await store.resolveVersion(bundleId, c.req.valid("query").version);
      const files = await store.files(version.id);
      const items = files.map((f) => ({
        path: f.path,
        size: f.size,
        sha256: f.sha256,
        media_type: mediaType(f.path, f.utf8),
        text: isText(f.path, f.utf8),
      }));
      return c.json({ version, items }, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/docs/{docId}/files/content",
      summary: "bytes of one file in a bundle version; default current",
      tags: ["files"],
      request: { params: DocIdParams, query: PathQuery.extend({ version: VersionRef }) },
      responses: {
        200: {
          description: "The file's bytes; `ETag` is its sha256, `X-Version-Id` the version read",
          content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { path, version: ref } = c.req.valid("query");
      safeRelativePath(path);
      const { store, bundleId } = await current(c, docId);
      const version = await store.resolveVersion(bundleId, ref);
      const { entry, bytes } = await store.fileBytes(version.id, path);
      const etag = `"${entry.sha256}"`;
      const headers: Record<string, string> = {
        "content-type": mediaType(path, bytes),
        etag,
        "x-version-id": version.id,
        "x-version-number": String(version.number),
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",
      };
      if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
      return new Response(bytes, { status: 200, headers });
    },
  );

  r.openapi(
    createRoute({
      method: "put",
      path: "/docs/{docId}/files/content",
      summary: "create or replace a file; creates a version when the content changed",
      tags: ["files"],
      request: {
        params: DocIdParams,
        query: PathQuery.extend({
          base_version: BaseVersion,
          message: z.string().max(500).optional().openapi({ description: "version message" }),
        }),
        body: {
          required: true,
          description: "the file's new bytes, sent as they are (any content type)",
          content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
        },
      },
      responses: { 200: jsonResponse(WriteResultSchema, "The version after the write"), ...errorResponses },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { path, base_version, message } = c.req.valid("query");
      safeRelativePath(path);
      const { store } = deps(c);
      // The body-limit middleware has refused a body over max_file_mb already (413 file_too_large).
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (bytes.length === 0)
        throw new ApiError(
          "empty_body",
          `the request has no body: send the new bytes of ${path} (e.g. curl --data-binary @${path}); to remove the file, DELETE /docs/${docId}/files?path=…`,
        );
      const existed = await store.hasFile(docId, path);
      const result = await store.write(
        docId,
        base_version,
        [{ path, bytes }],
        caller(c).id,
        message ?? `${existed ? "Update" : "Add"} ${path}`,
      );
      return c.json(await withVerdict(c, docId, result), 200);
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/docs/{docId}/files",
      summary: "delete a file; creates a version",
      tags: ["files"],
      request: {
        params: DocIdParams,
        query: PathQuery.extend({ base_version: BaseVersion, message: z.string().max(500).optional() }),
      },
      responses: { 200: jsonResponse(WriteResultSchema, "The version after the delete"), ...errorResponses },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { path, base_version, message } = c.req.valid("query");
      safeRelativePath(path);
      const { store } = deps(c);
      // A stale base is 409 first; then 404 file_not_found when there is nothing to delete.
      const result = await store.write(
        docId,
        base_version,
        [{ path, bytes: null }],
        caller(c).id,
        message ?? `Delete ${path}`,
      );
      return c.json(await withVerdict(c, docId, result), 200);
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/docs/{docId}/files/rename",
      summary: "rename or move a file inside the bundle; creates a version",
      tags: ["files"],
      request: {
        params: DocIdParams,
        query: z.object({ base_version: BaseVersion }),
        body: {
          required: true,
          content: {
            "application/json": { schema: z.object({ from: z.string().min(1), to: z.string().min(1) }) },
          },
        },
      },
      responses: { 200: jsonResponse(WriteResultSchema, "The version after the rename"), ...errorResponses },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { base_version } = c.req.valid("query");
      const { from, to } = c.req.valid("json");
      const result = await deps(c).store.rename(docId, base_version, from, to, caller(c).id);
      return c.json(await withVerdict(c, docId, result), 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/docs/{docId}/versions",
      summary: "versions of a bundle, newest first",
      tags: ["files"],
      request: {
        params: DocIdParams,
        query: z.object({
          limit: z.coerce.number().int().min(1).max(500).default(100),
          cursor: z
            .string()
            .regex(/^\d{1,15}$/, "a next_cursor from this list")
            .optional(),
        }),
      },
      responses: { 200: jsonResponse(VersionListSchema, "Versions, newest first"), ...errorResponses },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { limit, cursor } = c.req.valid("query");
      const { store, bundleId } = await current(c, docId);
      const rows = await store.versions(bundleId, {
        limit: limit + 1,
        before: cursor ? Number(cursor) : undefined,
      });
      const items = rows.slice(0, limit);
      const body: z.infer<typeof VersionListSchema> = { items };
      if (rows.length > limit) body.next_cursor = String(items[items.length - 1]!.number);
      return c.json(body, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/docs/{docId}/diff",
      summary: "compare two versions, by file and by section of the main doc",
      tags: ["files"],
      request: {
        params: DocIdParams,
        query: z.object({
          from: VersionRef.openapi({
            description: "older version (id or number); default: the one before `to`",
          }),
          to: VersionRef.openapi({
            description: "newer version (id or number); default: the current version",
          }),
        }),
      },
      responses: { 200: jsonResponse(DiffSchema, "What changed from `from` to `to`"), ...errorResponses },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const q = c.req.valid("query");
      const { store, bundleId } = await current(c, docId);
      const to = await store.resolveVersion(bundleId, q.to);
      const from =
        q.from !== undefined
          ? await store.resolveVersion(bundleId, q.from)
          : to.number > 1
            ? await store.resolveVersion(bundleId, String(to.number - 1))
            : to;
      // Compare by sha256 first; only the bytes of changed files are loaded.
      const inputs = await store.diffInputs(from.id, to.id);
      const shaA = new Map(inputs.from.map((f) => [f.path, f.sha256]));
      const shaB = new Map(inputs.to.map((f) => [f.path, f.sha256]));
      const changed = [...new Set([...shaA.keys(), ...shaB.keys()])].filter(
        (p) => shaA.get(p) !== shaB.get(p),
      );
      const load = async (shas: Map<string, string>) =>
        new Map(
          await Promise.all(
            changed
              .filter((p) => shas.has(p))
              .map(async (p) => [p, await inputs.bytes(shas.get(p)!)] as const),
          ),
        );
      const [a, b] = await Promise.all([load(shaA), load(shaB)]);
      const mainDoc = (await store.doc(docId)).doc.path;
      // On a worker thread when the doc is large (server/heavy).
      const { files, sections } = await deps(c).heavy.run({ kind: "diff", from: a, to: b, mainDoc });
      return c.json({ from, to, files, main_doc: mainDoc, sections }, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/docs/{docId}/export",
      summary:
        "download a bundle version as .zip, or the current version as a self-contained HTML report with the verdict",
      tags: ["files"],
      request: {
        params: DocIdParams,
        query: z.object({ version: VersionRef, format: z.enum(["zip", "html"]).default("zip") }),
      },
      responses: {
        200: {
          description:
            "`format=zip` (default): a .zip of the bundle folder at that version. `format=html`: a self-contained HTML report of the current version with its verdict and findings",
          content: {
            "application/zip": { schema: z.string().openapi({ format: "binary" }) },
            "text/html": { schema: z.string() },
          },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { docId } = c.req.valid("param");
      const { version: ref, format } = c.req.valid("query");
      if (format === "html") return htmlReport(c, docId, ref);
      const { store, bundleId } = await current(c, docId);
      const row = await store.doc(docId);
      const version = await store.resolveVersion(bundleId, ref);
      const files = await store.snapshot(version.id);
      const top = row.bundle.title;
      const tree: Record<string, Uint8Array> = {};
      for (const [path, bytes] of files) tree[`${top}/${path}`] = bytes;
      const zip = zipSync(tree, { level: 6, mtime: new Date(version.created_at) });
      const name = `${top}-v${version.number}.zip`.replace(/[^\w.-]+/g, "_");
      return new Response(zip, {
        status: 200,
        headers: {
          "content-type": "application/zip",
          "content-disposition": `attachment; filename="${name}"`,
          "x-version-id": version.id,
        },
      });
    },
  );

  return r;
}
