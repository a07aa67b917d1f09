/**
 * POST /bundles/import and /bundles/import/preview (contract 4.2), and the registration
 * of every route that writes a new bundle folder. Rules: docs/import.md.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { cycleIn } from "../../../core/trace/graph.js";
import type { Context } from "hono";
import { baseName, isMarkdownPath } from "../../../core/bundle/discover.js";
import {
  bundleOf,
  classifyImport,
  docTitle,
  ImportPlanError,
  layoutImport,
  stem,
  type PlannedMarkdown,
} from "../../../core/bundle/import-plan.js";
import { setFrontmatterKeys } from "../../../core/markdown/frontmatter.js";
import { suggestLinks } from "../../../core/trace/suggest.js";
import type { LinkKind as TraceLinkKind } from "../../../core/trace/links.js";
import { addHeldLinks } from "../../trace/held.js";
import { recordUpstream, upstreamReads } from "../../trace/upstream.js";
import { deps, errorResponses, jsonResponse, type Env, type Router } from "../../http.js";
import { ApiError, TooLargeError, ValidationError } from "../../errors.js";
import { BundleListSchema } from "../../schemas/common.js";
import { LinkKind } from "../../schemas/trace.js";
import {
  checkBundleName,
  checkDuplicates,
  checkSizes,
  importPath,
  readZip,
  slugifyName,
  stripCommonTop,
  type FrontmatterLink,
  type ImportEntry,
} from "../../store/import.js";
import type { Limits } from "../../store/local.js";
import { slices } from "../../slices.js";
import { bundleView } from "../../views.js";
import { caller } from "../../auth/actor.js";
import { registerCreateBundle } from "./create.js";
import { recordCreated } from "../../auth/share-links.js";

const MB = 1024 * 1024;

const ProfileSource = z
  .enum(["frontmatter", "docs", "profile", "guess", "none"])
  .openapi({ description: "where the profile comes from; `none`: not a spec doc" });

export const ImportPreviewSchema = z
  .object({
    name: z
      .string()
      .openapi({ description: "the bundle folder the import would write (given, or the default)" }),
    name_exists: z
      .boolean()
      .openapi({ description: "true when that folder exists: the import would be refused" }),
    items: z.array(
      z.object({
        path: z.string().openapi({ description: "path of the markdown file in the import" }),
        title: z.string().optional(),
        profile: z.string().openapi({ description: "profile key; empty when none is known" }),
        profile_source: ProfileSource,
        spec: z.boolean().openapi({
          description: "true when the import, sent with the same parts, would make this file a spec doc",
        }),
        bundle: z.string().optional().openapi({
          description: "slug of the bundle the spec doc would be in, relative to the served folder",
        }),
      }),
    ),
    links: z.array(z.object({ from: z.string(), to: z.string(), kind: z.string() })).openapi({
      description: "links offered (the rule of POST /links/suggest); send the confirmed ones as `links`",
    }),
  })
  .openapi("ImportPreview");

/**
 * Described for the OpenAPI document only (a plain schema, not zod): the handler reads and
 * checks the parts itself, so every refusal carries the codes of docs/import.md.
 */
const text = (description: string) => ({ type: "string" as const, description });
const multipartBody = {
  required: true,
  description: "the parts of contract 4.2; exactly one of `file`, `text` or `files` is sent",
  content: {
    "multipart/form-data": {
      schema: {
        type: "object" as const,
        properties: {
          name: text(
            "bundle folder name; default: the file name, the zipped folder's name, or the doc's title",
          ),
          file: { type: "string" as const, format: "binary", description: "a .md or .zip file" },
          text: text("pasted markdown"),
          profile: text("doc type for a single markdown file that names none"),
          files: {
            type: "array" as const,
            items: { type: "string" as const, format: "binary" },
            description: "files of a dropped folder; each part's file name is its path",
          },
          docs: text("JSON: [{path, profile}]; an empty profile means not a spec"),
          links: text("JSON: [{from, to, kind}]: links a person confirmed"),
        },
      },
    },
  },
};

export const importBundles = createRoute({
  method: "post",
  path: "/bundles/import",
  summary: "import a bundle from a .md file, a .zip file or pasted markdown",
  tags: ["bundles"],
  request: { body: multipartBody },
  responses: { 201: jsonResponse(BundleListSchema, "The imported bundles"), ...errorResponses },
});

export const previewImport = createRoute({
  method: "post",
  path: "/bundles/import/preview",
  summary: "list the markdown files of an import, each with its profile and the links offered",
  tags: ["bundles"],
  request: { body: multipartBody },
  responses: {
    200: jsonResponse(ImportPreviewSchema, "What the import would do; nothing is written"),
    ...errorResponses,
  },
});

const DocsPart = z.array(z.object({ path: z.string().min(1), profile: z.string() }));
const LinksPart = z.array(z.object({ from: z.string().min(1), to: z.string().min(1), kind: LinkKind }));

function jsonPart<T extends z.ZodType>(
  value: string | undefined,
  part: string,
  schema: T,
): z.output<T> | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new ApiError(
      "invalid_json",
      `the \`${part}\` part is not valid JSON (${err instanceof Error ? err.message : String(err)}); nothing was written`,
    );
  }
  const result = schema.safeParse(parsed);
  if (!result.success)
    throw new ValidationError(
      `the \`${part}\` part does not match its shape`,
      result.error.issues.map((i) => ({
        field: ["body", part, ...i.path.map(String)].join("."),
        message: i.message,
      })),
    );
  return result.data;
}

/** A file part of the form. */
type FilePart = Exclude<ReturnType<FormData["get"]>, string | null>;

interface ImportForm {
  name?: string;
  file?: FilePart;
  text?: string;
  profile?: string;
  files: FilePart[];
  docs?: Array<{ path: string; profile: string }>;
  links?: Array<{ from: string; to: string; kind: string }>;
}

async function readForm(c: Context<Env>, limits: Limits): Promise<ImportForm> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data"))
    throw new ApiError("unsupported_media_type", "send the import as multipart/form-data");
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > limits.maxBundleMb * MB + MB) throw new TooLargeError("bundle", length, limits.maxBundleMb);
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch (err) {
    throw new ValidationError(
      `the body is not valid multipart/form-data (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const textPart = (part: string): string | undefined => {
    const v = form.get(part);
    if (v === null) return undefined;
    if (typeof v !== "string")
      throw new ValidationError(`the \`${part}\` part must be text, not a file`, [
        { field: `body.${part}`, message: "expected a text part" },
      ]);
    return v;
  };
  const fileValue = form.get("file");
  if (typeof fileValue === "string" && fileValue !== "")
    throw new ValidationError("the `file` part must be a file", [
      { field: "body.file", message: "expected a file part" },
    ]);
  // Browsers send an empty file part, and an empty text field, for controls left blank.
  const file =
    fileValue !== null && typeof fileValue !== "string" && (fileValue.name !== "" || fileValue.size > 0)
      ? fileValue
      : undefined;
  const files = form
    .getAll("files")
    .filter((f): f is FilePart => typeof f !== "string" && (f.name !== "" || f.size > 0));
  const pasted = textPart("text");
  const name = textPart("name")?.trim();
  const profile = textPart("profile")?.trim();
  const docs = jsonPart(textPart("docs"), "docs", DocsPart);
  const links = jsonPart(textPart("links"), "links", LinksPart);
  return {
    ...(name ? { name } : {}),
    ...(file ? { file } : {}),
    // A form sends text with CRLF line ends (HTML's rule for textareas): keep LF.
    ...(pasted !== undefined && pasted.trim() !== "" ? { text: pasted.replace(/\r\n?/g, "\n") } : {}),
    ...(profile ? { profile } : {}),
    files,
    ...(docs ? { docs } : {}),
    ...(links ? { links } : {}),
  };
}

/** The files of the import (paths relative to its top), and the name they suggest. */
async function gather(
  form: ImportForm,
  limits: Limits,
  textName: string,
): Promise<{ entries: ImportEntry[]; nameHint?: string }> {
  const sources = [form.file, form.text, form.files.length > 0 ? form.files : undefined].filter(
    (s) => s !== undefined,
  );
  if (sources.length !== 1)
    throw new ApiError(
      "import_source",
      sources.length === 0
        ? "send one source: a `file` (.md or .zip), pasted `text`, or the `files` of a dropped folder"
        : "send only one source: `file`, `text` or `files` (a dropped folder counts as the file)",
    );
  if (form.text !== undefined) {
    const bytes = new TextEncoder().encode(form.text);
    const fileName = `${baseName(textName)}.md`;
    checkSizes([{ path: fileName, size: bytes.length }], limits);
    return { entries: [{ path: fileName, bytes }] };
  }
  if (form.file) {
    const f = form.file;
    const lower = f.name.toLowerCase();
    if (isMarkdownPath(lower)) {
      const path = importPath(baseName(f.name), "file");
      if (path === undefined)
        throw new ApiError("bad_path", `the file name ${JSON.stringify(f.name)} is hidden`);
      checkSizes([{ path, size: f.size }], limits);
      return { entries: [{ path, bytes: new Uint8Array(await f.arrayBuffer()) }], nameHint: stem(path) };
    }
    if (lower.endsWith(".zip")) {
      if (f.size > limits.maxBundleMb * MB) throw new TooLargeError("bundle", f.size, limits.maxBundleMb);
      const stripped = stripCommonTop(await readZip(new Uint8Array(await f.arrayBuffer()), limits));
      return { entries: stripped.entries, nameHint: stripped.top ?? stem(f.name) };
    }
    throw new ApiError(
      "unsupported_file_type",
      `${JSON.stringify(f.name)} is neither a .md nor a .zip file; send a folder as a .zip or as \`files\``,
    );
  }
  const parts: Array<{ path: string; file: FilePart }> = [];
  for (const f of form.files) {
    const path = importPath(f.name, "files");
    if (path !== undefined) parts.push({ path, file: f });
  }
  checkDuplicates(parts.map((p) => p.path));
  checkSizes(
    parts.map((p) => ({ path: p.path, size: p.file.size })),
    limits,
  );
  const read = await Promise.all(
    parts.map(async (p) => ({ path: p.path, bytes: new Uint8Array(await p.file.arrayBuffer()) })),
  );
  const stripped = stripCommonTop(read);
  return { entries: stripped.entries, ...(stripped.top ? { nameHint: stripped.top } : {}) };
}

type MdFile = PlannedMarkdown;

interface Plan {
  name: string;
  md: MdFile[];
  entries: ImportEntry[];
}

/** The plan's refusals as API errors (docs/errors.md). */
async function planned<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ImportPlanError)) throw err;
    if (err.code === "unknown_profile") throw new ApiError("unknown_profile", err.message);
    throw new ValidationError(err.message, err.field ? [err.field] : undefined);
  }
}

async function plan(c: Context<Env>, preview: boolean): Promise<Plan & { limits: Limits; form: ImportForm }> {
  const { store } = deps(c);
  const limits = await store.currentLimits();
  const form = await readForm(c, limits);
  if (form.name !== undefined) checkBundleName(form.name);
  const pastedTitle = form.text !== undefined ? docTitle(form.text) : undefined;
  const gathered = await gather(form, limits, form.name ?? (slugifyName(pastedTitle ?? "") || "spec"));
  const { profiles } = deps(c);
  const request = {
    ...(form.profile !== undefined ? { profile: form.profile } : {}),
    ...(form.docs ? { docs: form.docs } : {}),
  };
  const md = await planned(() =>
    classifyImport(gathered.entries, request, profiles, gathered.nameHint, preview, slices()),
  );
  let name = form.name;
  if (name === undefined) {
    const hint = gathered.nameHint ?? pastedTitle;
    name = hint ? slugifyName(hint) : undefined;
    if (!name)
      throw new ValidationError(
        "give the bundle a `name`: none could be made from the file name or the doc's title",
        [{ field: "body.name", message: "required" }],
      );
    checkBundleName(name);
  }
  return { name, md, entries: gathered.entries, limits, form };
}

/** Registers POST /bundles, /bundles/import and /bundles/import/preview. */
export function registerBundleWrites(r: Router): void {
  registerCreateBundle(r);

  r.openapi(previewImport, async (c) => {
    const { store, profiles } = deps(c);
    const p = await plan(c, true);
    const specs = p.md.filter((d) => d.spec);
    const { docPath } = await layoutImport(p.entries, specs, slices());
    const links = suggestLinks(
      p.md.map((d) => ({ path: d.path, profile: d.profile })),
      (key) => profiles.get(key)?.upstream,
    );
    return c.json(
      {
        name: p.name,
        name_exists: await store.nameTaken(p.name),
        items: p.md.map((d) => ({
          path: d.path,
          ...(d.title ? { title: d.title } : {}),
          profile: d.profile,
          profile_source: d.source,
          spec: d.spec,
          ...(d.spec ? { bundle: bundleOf(p.name, docPath.get(d.path)!) } : {}),
        })),
        links,
      },
      200,
    );
  });

  r.openapi(importBundles, async (c) => {
    const { store, runs } = deps(c);
    const p = await plan(c, false);
    const specs = p.md.filter((d) => d.spec);
    if (specs.length === 0)
      throw new ApiError(
        "no_spec_doc",
        "no markdown file of the import names a `type`: send `profile` (one markdown file) or pick profiles in `docs`; POST /bundles/import/preview shows guesses",
      );
    // Write the type into docs that did not name one, then the confirmed links.
    const pause = slices();
    const texts = new Map<string, string>();
    for (const d of specs) {
      await pause();
      if (d.source === "frontmatter") continue;
      try {
        texts.set(d.path, setFrontmatterKeys(d.text, { type: d.profile }));
      } catch (err) {
        throw new ValidationError(
          `cannot write the type into ${d.path}: its frontmatter is not valid YAML (${err instanceof Error ? err.message : String(err)})`,
        );
      }
    }
    const { files, docPath } = await layoutImport(p.entries, specs, pause);
    const specPaths = new Set(specs.map((d) => d.path));
    const byFrom = new Map<string, FrontmatterLink[]>();
    for (const [i, l] of (p.form.links ?? []).entries()) {
      for (const end of ["from", "to"] as const)
        if (!specPaths.has(l[end]))
          throw new ValidationError(
            `links[${i}].${end} ${JSON.stringify(l[end])} is not a spec doc of the import`,
            [{ field: `body.links.${i}.${end}`, message: "not a spec doc of the import" }],
          );
      if (l.from === l.to)
        throw new ValidationError(`links[${i}] links a doc to itself`, [
          { field: `body.links.${i}.to`, message: "same as from" },
        ]);
      byFrom.set(l.from, [
        ...(byFrom.get(l.from) ?? []),
        { kind: l.kind, target: bundleOf(p.name, docPath.get(l.to)!) },
      ]);
    }
    // implements/refines links that come back to where they start (docs/trace.md).
    const cycle = cycleIn(
      (p.form.links ?? [])
        .filter((l) => l.kind === "implements" || l.kind === "refines")
        .map((l) => [l.from, l.to] as const),
    );
    if (cycle) throw new ApiError("link_cycle", `the links form a cycle: ${cycle.join(" -> ")}`);
    const encoder = new TextEncoder();
    for (const d of specs) {
      await pause();
      const text = texts.get(d.path) ?? d.text;
      if (text !== d.text) files.set(docPath.get(d.path)!, encoder.encode(text));
    }
    checkSizes(
      [...files].map(([path, bytes]) => ({ path, size: bytes.length })),
      p.limits,
    );
    const ids = await store.addFolder(p.name, files, { author: caller(c).id });
    await recordCreated(deps(c), ids, caller(c));
    const rows = await store.bundlesByIds(ids);
    // The confirmed links: held by the service (docs/trace.md), the files stay as sent.
    const bundleOfSlug = new Map(rows.map((row) => [row.bundle.slug, row.bundle.id]));
    const held = [...byFrom].flatMap(([from, links]) => {
      const bundleId = bundleOfSlug.get(bundleOf(p.name, docPath.get(from)!));
      return bundleId
        ? links.map((l) => ({ bundleId, kind: l.kind as TraceLinkKind, target: l.target }))
        : [];
    });
    await addHeldLinks(deps(c).db, held, caller(c).id, deps(c).clock.now());
    await Promise.all(rows.map((row) => runs.settled(row.doc.id)));
    const runsByDoc = await runs.latestRuns(rows.map((row) => row.doc.id));
    // Those lint runs started with the files, before the held links existed: record the
    // upstream versions they read through them too, so a newer upstream makes them stale.
    const linking = new Set(held.map((l) => l.bundleId));
    for (const row of rows) {
      const run = runsByDoc.get(row.doc.id);
      if (!run || !linking.has(row.bundle.id)) continue;
      const { bytes } = await store.fileBytes(row.head.id, row.doc.path);
      const { reads } = await upstreamReads(deps(c).db, deps(c).profiles, row.doc.id, bytes);
      await recordUpstream(deps(c).db, run.id, reads);
    }
    const items = rows
      .map((row) => bundleView(row, runsByDoc.get(row.doc.id)))
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    const problems = store.problems().filter((q) => q.path === p.name || q.path.startsWith(`${p.name}/`));
    return c.json({ items, problems }, 201);
  });
}
