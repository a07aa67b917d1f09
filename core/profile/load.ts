/**
 * Parse and validate profile YAML, with errors pointing at a line and column. Files come
 * through a `ProfileSource` handed in (the core never touches the disk): the CLI passes
 * a folder reader (cli/lint-fs.ts), the server one backed by its database.
 */
import { LineCounter, isMap, isNode, isPair, isScalar, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { ProfileSchema, type Profile } from "./schema.js";

export interface ProfileError {
  message: string;
  /** 1-based line in profile.yaml. */
  line: number;
  /** 1-based column. */
  column: number;
  /** Where in the profile, like "checks.2.params.section"; "" for the whole file. */
  path: string;
  /** The file the error is in, when known (e.g. "prd/profile.yaml"). */
  file?: string;
}

export type ProfileParseResult = { ok: true; profile: Profile } | { ok: false; errors: ProfileError[] };

export interface ParseProfileOptions {
  /** The key the profile must have (its folder name). */
  key?: string;
  /** The template's markdown, kept on the profile as `templateText`. */
  templateText?: string;
  /** File name used in errors. */
  file?: string;
  /**
   * Finds the profile an `extends: <key>` names (its YAML, and its template for a child
   * that has none of its own). `from` is the profile that extends it. Without it, a
   * profile with `extends` does not load.
   */
  parent?: ParentResolver;
}

/** A profile `extends` can name: its text and where it comes from (`file` tells profiles apart, for cycles). */
export interface ParentProfile {
  yaml: string;
  template?: string;
  file: string;
}

export type ParentResolver = (key: string, from: { key: string; file?: string }) => ParentProfile | undefined;

type Path = readonly PropertyKey[];

/** The source range of the node at `path`, or of its deepest existing ancestor. */
function rangeOf(doc: Document, path: Path, unrecognizedKey?: string): [number, number] {
  for (let n = path.length; n >= 0; n--) {
    const node: unknown = n === 0 ? doc.contents : doc.getIn(path.slice(0, n) as unknown[], true);
    if (!isNode(node)) continue;
    if (unrecognizedKey !== undefined && n === path.length && isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === unrecognizedKey);
      if (pair && isNode(pair.key) && pair.key.range) return [pair.key.range[0], pair.key.range[1]];
    }
    // For a scalar value report the value; for a missing child report the parent's first key.
    if (node.range) return [node.range[0], node.range[1]];
  }
  return [0, 0];
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_union" && "note" in issue && issue.note === "No matching discriminator")
    return `unknown check kind: ${issue.message}`;
  if (issue.code === "unrecognized_keys")
    return `unknown key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  return issue.message;
}

/** Parse profile YAML text into a validated profile, or errors with line and column. Never throws. */
export function parseProfile(yamlText: string, options: ParseProfileOptions = {}): ProfileParseResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const file = options.file;
  const withFile = (e: ProfileError): ProfileError => (file ? { ...e, file } : e);
  if (doc.errors.length > 0)
    return {
      ok: false,
      errors: doc.errors.map((e) =>
        withFile({
          message: e.message.split("\n")[0] ?? e.message,
          ...at(e.pos[0]),
          path: "",
        }),
      ),
    };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return {
      ok: false,
      errors: [
        withFile({ message: err instanceof Error ? err.message : String(err), line: 1, column: 1, path: "" }),
      ],
    };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return {
      ok: false,
      errors: [
        withFile({ message: "a profile is a YAML mapping (key: value lines)", line: 1, column: 1, path: "" }),
      ],
    };
  let inherited: Inherited | undefined;
  if ("extends" in data) {
    const r = resolveExtends(data, options, [options.file ?? ""]);
    if ("error" in r) {
      const path = r.path ?? ["extends"];
      const [start] = rangeOf(doc, path);
      return {
        ok: false,
        errors: [withFile({ message: r.error, ...at(start), path: path.map(String).join(".") })],
      };
    }
    inherited = r;
    data = r.data;
  }
  const parsed = ProfileSchema.safeParse(data);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => {
      const key = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
      // In a profile that extends another, a check's index is the merged list's: point at
      // the child's entry, or at `extends` for what came from the parent unchanged.
      let docPath: Path = issue.path;
      let note = "";
      if (inherited) {
        const [head, index] = issue.path;
        if (head === "checks" && typeof index === "number") {
          const origin = inherited.origins[index];
          if (origin?.child !== undefined) docPath = ["checks", origin.child, ...issue.path.slice(2)];
          else {
            docPath = ["extends"];
            note = ` (check '${origin?.slug ?? index}' of '${inherited.parentKey}')`;
          }
        } else if (head !== undefined && !(typeof head === "string" && head in inherited.own))
          docPath = ["extends"];
      }
      const [start] = rangeOf(doc, docPath, key);
      const pos = at(start);
      const path = issue.path.map(String).join(".");
      return withFile({
        message: (path ? `${path}: ${issueMessage(issue)}` : issueMessage(issue)) + note,
        ...pos,
        path,
      });
    });
    errors.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, errors };
  }
  const profile: Profile = parsed.data;
  if (options.key !== undefined && profile.key !== options.key) {
    const [start] = rangeOf(doc, ["key"]);
    return {
      ok: false,
      errors: [
        withFile({
          message: `key '${profile.key}' must equal the folder name '${options.key}'`,
          ...at(start),
          path: "key",
        }),
      ],
    };
  }
  // A profile that extends another and has no template of its own (none, or an empty one) takes its parent's.
  if (inherited?.template !== undefined && !options.templateText) profile.templateText = inherited.template;
  else if (options.templateText !== undefined) profile.templateText = options.templateText;
  return { ok: true, profile };
}

type Raw = Record<string, unknown>;

interface Inherited {
  data: Raw;
  parentKey: string;
  /** The child's own top-level keys. */
  own: Raw;
  /** Per check of the merged list: its index in the child's `checks`, if the child gave it. */
  origins: { slug?: string; child?: number }[];
  /** The nearest ancestor's template text, when the resolver gave one. */
  template?: string;
}

const isRaw = (v: unknown): v is Raw => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * `extends: <key>` (docs/profiles.md): the parent's fields, each replaced by the child's;
 * `checks` merged by slug (fields replaced, `params` merged key by key, `disabled: true`
 * removes the parent's check, new slugs appended). The parent may extend another in turn.
 */
function resolveExtends(
  child: Raw,
  options: ParseProfileOptions,
  chain: string[],
): Inherited | { error: string; path?: Path } {
  const parentKey = child["extends"];
  if (typeof parentKey !== "string" || parentKey === "")
    return { error: "extends: the key of the profile to extend, e.g. 'extends: prd'" };
  const ownKey = typeof child["key"] === "string" ? child["key"] : (options.key ?? "");
  const parent = options.parent?.(parentKey, {
    key: ownKey,
    ...(options.file ? { file: options.file } : {}),
  });
  if (!parent) return { error: `extends: no profile '${parentKey}' to extend` };
  if (chain.includes(parent.file) || chain.length > 16)
    return {
      error: `extends: '${parentKey}' leads back to this profile (${[...chain, parent.file].join(" -> ")})`,
    };
  let parentData: unknown;
  try {
    const pdoc = parseDocument(parent.yaml, { uniqueKeys: true });
    parentData = pdoc.errors.length > 0 ? undefined : pdoc.toJS({ maxAliasCount: 100 });
  } catch {
    parentData = undefined;
  }
  if (!isRaw(parentData))
    return { error: `extends: profile '${parentKey}' (${parent.file}) is not valid YAML` };
  let template = parent.template;
  if ("extends" in parentData) {
    const up = resolveExtends(
      parentData,
      {
        ...options,
        key: typeof parentData["key"] === "string" ? parentData["key"] : parentKey,
        file: parent.file,
      },
      [...chain, parent.file],
    );
    if ("error" in up) return { error: up.error };
    parentData = up.data;
    template ??= up.template;
  }
  const base = parentData as Raw;
  const { extends: _ignored, ...own } = child;
  const data: Raw = { ...base, ...own, extends: parentKey };
  if (!("key" in own) && options.key !== undefined) data["key"] = options.key;
  // Where the child names its template file, that file is the template; else the parent's.
  if (!("template" in own)) delete data["template"];
  const origins: Inherited["origins"] = [];
  if ("checks" in own) {
    const parentChecks = Array.isArray(base["checks"]) ? (base["checks"] as unknown[]) : [];
    const merged: unknown[] = parentChecks.slice();
    parentChecks.forEach((c) =>
      origins.push(isRaw(c) && typeof c["slug"] === "string" ? { slug: c["slug"] } : {}),
    );
    const childChecks = Array.isArray(own["checks"]) ? (own["checks"] as unknown[]) : undefined;
    if (!childChecks)
      return { data, parentKey, own, origins: [], ...(template !== undefined ? { template } : {}) };
    const removed = new Set<number>();
    let missing: { error: string; path: Path } | undefined;
    childChecks.forEach((c, j) => {
      if (!isRaw(c)) {
        merged.push(c);
        origins.push({ child: j });
        return;
      }
      const { disabled, ...entry } = c;
      const i = merged.findIndex((m, k) => !removed.has(k) && isRaw(m) && m["slug"] === entry["slug"]);
      if (i >= 0 && i < parentChecks.length) {
        if (disabled === true) {
          removed.add(i);
          return;
        }
        const p = merged[i] as Raw;
        const params =
          isRaw(p["params"]) && isRaw(entry["params"]) ? { ...p["params"], ...entry["params"] } : undefined;
        merged[i] = { ...p, ...entry, ...(params ? { params } : {}) };
        origins[i] = { slug: String(entry["slug"]), child: j };
        return;
      }
      if (disabled === true) {
        missing ??= {
          error: `checks.${j}: '${parentKey}' has no check '${String(entry["slug"])}' to disable`,
          path: ["checks", j, "slug"],
        };
        return;
      }
      merged.push(entry);
      origins.push({ child: j });
    });
    if (missing) return missing;
    data["checks"] = merged.filter((_, k) => !removed.has(k));
    const kept = origins.filter((_, k) => !removed.has(k));
    origins.length = 0;
    origins.push(...kept);
  } else {
    const parentChecks = Array.isArray(base["checks"]) ? (base["checks"] as unknown[]) : [];
    parentChecks.forEach((c) =>
      origins.push(isRaw(c) && typeof c["slug"] === "string" ? { slug: c["slug"] } : {}),
    );
  }
  return { data, parentKey, own, origins, ...(template !== undefined ? { template } : {}) };
}

/** Reads the files of profiles: `<key>/profile.yaml`, `<key>/template.md`. Synchronous. */
export interface ProfileSource {
  /** Keys of the profiles the source holds (folder names), sorted. */
  keys(): string[];
  /** Text of a profile's file, or undefined when it does not exist. */
  read(key: string, file: string): string | undefined;
}

/** Load one profile and its template (`parse`: parseProfile, or a caller's faster equivalent). */
export function loadProfile(
  source: ProfileSource,
  key: string,
  parse: (yamlText: string, options: ParseProfileOptions) => ProfileParseResult = parseProfile,
): ProfileParseResult {
  const file = `${key}/profile.yaml`;
  const text = source.read(key, "profile.yaml");
  if (text === undefined)
    return { ok: false, errors: [{ message: "profile.yaml not found", line: 1, column: 1, path: "", file }] };
  const result = parse(text, { key, file });
  if (!result.ok) return result;
  const template = source.read(key, result.profile.template) ?? result.profile.templateText;
  if (template === undefined)
    return {
      ok: false,
      errors: [
        {
          message: `template file '${result.profile.template}' not found`,
          line: 1,
          column: 1,
          path: "template",
          file,
        },
      ],
    };
  result.profile.templateText = template;
  return result;
}

/** Load every profile of a source; the invalid ones come back as errors, the rest are usable. */
export function loadProfiles(source: ProfileSource): { profiles: Profile[]; errors: ProfileError[] } {
  const profiles: Profile[] = [];
  const errors: ProfileError[] = [];
  for (const key of source.keys()) {
    const r = loadProfile(source, key);
    if (r.ok) profiles.push(r.profile);
    else errors.push(...r.errors);
  }
  return { profiles, errors };
}
