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
}

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
  const parsed = ProfileSchema.safeParse(data);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => {
      const key = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
      const [start] = rangeOf(doc, issue.path, key);
      const pos = at(start);
      const path = issue.path.map(String).join(".");
      return withFile({
        message: path ? `${path}: ${issueMessage(issue)}` : issueMessage(issue),
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
  if (options.templateText !== undefined) profile.templateText = options.templateText;
  return { ok: true, profile };
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
  const template = source.read(key, result.profile.template);
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
