/**
 * The lint engine: runs a profile's checks over the main doc of a bundle and returns
 * findings in document order. Pure and synchronous; it runs on every save. Nothing a
 * file holds makes it throw: broken frontmatter, invalid UTF-8, a check that fails are
 * all reported as findings.
 */
import { anchorAt, lfAnchorView, type Anchor } from "../anchor/anchor.js";
import { safeText } from "../anchor/safe-text.js";
import { classifyMarkdown } from "../bundle/discover.js";
import { parseMarkdown, type MarkdownDoc } from "../markdown/document.js";
import { frontmatterType } from "../markdown/frontmatter.js";
import { guessProfile, guessSize } from "../profile/guess.js";
import type { Profile, ProfileCheck } from "../profile/schema.js";
import { findAssumptions } from "./checks/assumptions.js";
import { checkKind } from "./checks/index.js";
import { docAnchorRange } from "./helpers.js";
import { IdCounter, findingKey } from "./ids.js";
import {
  lowerLevel,
  type CheckContext,
  type Finding,
  type FindingInput,
  type Level,
  type RepoView,
} from "./types.js";

export interface LintInput {
  /** Files of the bundle by bundle-relative posix path. Only the main doc's content is read; the keys tell links what exists. */
  files: ReadonlyMap<string, Uint8Array | string>;
  /** Bundle-relative path of the spec doc to lint. */
  mainPath: string;
  /** The profile to review with. Default: the one the frontmatter's `type` names in `profiles`, else the best guess. */
  profile?: Profile;
  /** Known profiles, for resolving `type` and guessing. */
  profiles?: readonly Profile[];
  /**
   * The type the repository gives a doc whose frontmatter names none (the `types` of
   * `.spec-review/config.yaml`): the doc is linted as if it named it (no adoption of the type).
   */
  type?: string;
  /**
   * Reads another file of the bundle (a sibling metadata file such as `kep.yaml`) when
   * `files` holds only names (an empty string as content). Bundle-relative posix path.
   */
  readFile?: (path: string) => Uint8Array | string | undefined;
  /** The repository around the bundle: links that leave the bundle are resolved there instead of being left unjudged. */
  repo?: RepoView;
}

export interface Adopt {
  type?: string;
  size?: string;
}

export interface Assumption {
  /** The sentence without its `Assumption:` label. */
  text: string;
  anchor: Anchor;
}

export interface LintResult {
  file: string;
  /** The profile the doc was reviewed with. */
  profile_key: string;
  /** The size the doc was reviewed at. */
  size: string;
  /** In document order (anchor start), then profile check order. */
  findings: Finding[];
  /** Frontmatter keys the doc does not name and the values used (contract 2.1); absent when it names both. */
  adopt?: Adopt;
  /** Findings whose level was lowered because of adoption. */
  relaxed_count: number;
  /** Sentences opening with `Assumption:`. */
  assumptions: Assumption[];
}

/** Engine findings that are not profile checks. */
export const ENGINE_CHECKS = {
  "frontmatter-invalid": { level: "MUST", message: "Frontmatter is not valid YAML" },
  "encoding-invalid": { level: "MUST", message: "File is not valid UTF-8" },
  "file-missing": { level: "MUST", message: "Spec doc not found in the bundle" },
  "profile-unknown": { level: "MUST", message: "Unknown document type" },
  "size-unknown": { level: "SHOULD", message: "Unknown size" },
  "check-failed": { level: "SHOULD", message: "A check could not run" },
} as const satisfies Record<string, { level: Level; message: string }>;

export type EngineCheck = keyof typeof ENGINE_CHECKS;

/** The radar category of engine findings: `structure` when the profile has it, else its first one. */
export function engineCategory(profile: Profile): string {
  return profile.radar.some((r) => r.key === "structure") ? "structure" : profile.radar[0]!.key;
}

function fill(template: string, vars: Record<string, string>): string {
  if (!template.includes("{")) return vars["detail"] ? `${template}: ${vars["detail"]}` : template;
  return template.replace(/\{([a-z_]+)\}/g, (m, name: string) => vars[name] ?? m);
}

/** Decode a file's bytes as UTF-8, keeping a BOM so positions match the bytes; `invalid` when bytes were replaced. */
export function decodeText(content: Uint8Array | string): { text: string; invalid: boolean } {
  if (typeof content === "string") return { text: content, invalid: false };
  try {
    // ignoreBOM keeps a BOM in the text, so string positions map to the file's bytes.
    return {
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(content),
      invalid: false,
    };
  } catch {
    return { text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(content), invalid: true };
  }
}

const paramsCache = new WeakMap<ProfileCheck, { ok: true; value: unknown } | { ok: false; error: string }>();

function paramsOf(entry: ProfileCheck): { ok: true; value: unknown } | { ok: false; error: string } {
  let cached = paramsCache.get(entry);
  if (!cached) {
    const kind = checkKind(entry.kind);
    if (!kind) cached = { ok: false, error: `unknown check kind '${entry.kind}'` };
    else {
      const r = kind.options.safeParse(entry.params ?? {});
      cached = r.success
        ? { ok: true, value: r.data }
        : { ok: false, error: r.error.issues[0]?.message ?? "invalid params" };
    }
    paramsCache.set(entry, cached);
  }
  return cached;
}

/** Check kinds that report one defect in their own words: an empty section is both a required section without content and an empty one. */
const DEFECT_FAMILY: Record<string, string> = { "required-section": "section", "empty-section": "section" };

const LEVEL_RANK: Record<Level, number> = { MUST: 2, SHOULD: 1, INFO: 0 };

/**
 * Kinds that report something absent, anchored where it would go (the title, the doc's
 * top): two of their findings on one span are two things missing, never one defect twice.
 */
const ABSENCE_KINDS = new Set(["required-frontmatter", "required-pattern"]);

/**
 * Report one defect once: findings on the same span by the same check, or by checks of
 * one family (two forbidden-pattern entries matching one "TBD", required-section and
 * empty-section on one empty heading) are one finding. The highest level wins, then the
 * check listed first in the profile, whose slug the finding's id is made of. Sections
 * missing altogether are all reported at the doc's first line: those stay apart unless
 * they say the same.
 */
function dedupeFindings(
  findings: Finding[],
  order: Map<Finding, number>,
  profile: Profile,
  docBytes: [number, number],
): void {
  if (findings.length < 2) return;
  const winners = new Map<string, Finding>();
  const drop = new Set<Finding>();
  for (const f of findings) {
    const position = order.get(f) ?? -1;
    const kind = position >= 0 ? (profile.checks[position]?.kind ?? f.check) : f.check;
    const family = DEFECT_FAMILY[kind] ?? kind;
    const docLevel =
      (f.anchor.start === docBytes[0] && f.anchor.end === docBytes[1]) || ABSENCE_KINDS.has(kind);
    const key = `${f.anchor.file}\u0000${f.anchor.start}\u0000${f.anchor.end}\u0000${family}${docLevel ? `\u0000${f.check}\u0000${f.message}` : ""}`;
    const other = winners.get(key);
    if (!other) {
      winners.set(key, f);
      continue;
    }
    const better =
      LEVEL_RANK[f.level] > LEVEL_RANK[other.level] ||
      (LEVEL_RANK[f.level] === LEVEL_RANK[other.level] && position < (order.get(other) ?? -1));
    if (better) {
      drop.add(other);
      winners.set(key, f);
    } else drop.add(f);
  }
  if (drop.size === 0) return;
  let w = 0;
  for (const f of findings) if (!drop.has(f)) findings[w++] = f;
  findings.length = w;
}

/** Give each finding its stable id (findingKey: never the message), equal ones told apart by order. */
function assignIds(findings: Finding[], doc: MarkdownDoc): void {
  const ids = new IdCounter();
  const asLf = lfAnchorView(doc);
  for (const f of findings) f.id = ids.make(findingKey(f.check, asLf ? asLf(f.anchor) : f.anchor));
}

/** The sentences opening with `Assumption:`, anchored. */
export function assumptions(doc: MarkdownDoc, file: string): Assumption[] {
  return findAssumptions(doc).map((a) => ({
    text: safeText(a.text),
    anchor: anchorAt(doc, file, a.charStart, a.charEnd),
  }));
}

/**
 * Lint the main doc of a bundle. Throws only on a programming error (no profile at all);
 * everything about the files comes back as findings.
 */
export function lintBundle(input: LintInput): LintResult {
  const content = input.files.get(input.mainPath);
  const { text, invalid } = decodeText(content ?? "");
  return lintDoc(parseMarkdown(text), input, { invalidEncoding: invalid, missing: content === undefined });
}

/** Lint an already parsed doc (the server may hold one). Same rules as lintBundle. */
export function lintDoc(
  doc: MarkdownDoc,
  input: LintInput,
  flags: { invalidEncoding?: boolean; missing?: boolean } = {},
): LintResult {
  const file = input.mainPath;
  const profiles = input.profiles ?? [];
  const fm = doc.frontmatter;
  // The type the doc names: from valid frontmatter, or from a plain `type:` line in a broken one.
  const named = (fm.error ? classifyMarkdown(doc.text).type : frontmatterType(fm)) ?? input.type;
  let profile = input.profile;
  let unknownType: string | undefined;
  if (!profile && named !== undefined) {
    profile = profiles.find((p) => p.key === named);
    if (!profile) unknownType = named;
  }
  if (!profile) {
    const guess = guessProfile(doc, profiles);
    profile = (guess && profiles.find((p) => p.key === guess.key)) ?? profiles[0];
  }
  if (!profile) throw new Error("lintBundle needs a profile or a non-empty profiles list");

  const sizeValue = fm.data["size"];
  const namedSize = typeof sizeValue === "string" && sizeValue.trim() !== "" ? sizeValue.trim() : undefined;
  const sizeKeys = profile.sizes.values.map((v) => v.key);
  let size = namedSize !== undefined && sizeKeys.includes(namedSize) ? namedSize : undefined;
  const adopt: Adopt = {};
  if (named === undefined) adopt.type = profile.key;
  if (namedSize === undefined && !fm.error) {
    size = guessSize(doc, profile);
    adopt.size = size;
  }
  size ??= profile.sizes.default;
  const adopting = adopt.type !== undefined || adopt.size !== undefined;
  const skip = new Set(profile.sizes.values.find((v) => v.key === size)?.skip ?? []);

  const findings: Finding[] = [];
  const order = new Map<Finding, number>();
  const category = engineCategory(profile);
  const docRange = docAnchorRange(doc);
  const engineFinding = (check: EngineCheck, detail: string, range: [number, number] = docRange) => {
    const f: Finding = {
      id: "",
      check,
      level: ENGINE_CHECKS[check].level,
      category,
      message: `${ENGINE_CHECKS[check].message}: ${detail}`,
      anchor: anchorAt(doc, file, range[0], range[1]),
      relaxed: false,
    };
    findings.push(f);
    order.set(f, -1);
  };
  if (flags.missing) engineFinding("file-missing", `'${file}' is not among the bundle's files`);
  if (flags.invalidEncoding)
    engineFinding("encoding-invalid", "invalid byte sequences were replaced by U+FFFD");
  const fmError = fm.error;
  if (fmError) {
    const lineStart = doc.index.charOfLine(fmError.line - 1);
    const lineEnd = doc.index.charOfLine(fmError.line);
    let e = lineEnd;
    while (e > lineStart && /\s/.test(doc.text[e - 1]!)) e--;
    engineFinding(
      "frontmatter-invalid",
      `${fmError.message} (line ${fmError.line}, column ${fmError.column})`,
      [lineStart, Math.max(lineStart, e)],
    );
  }
  if (unknownType !== undefined)
    engineFinding("profile-unknown", `type '${unknownType}' names no profile; reviewed as '${profile.key}'`);
  if (namedSize !== undefined && !sizeKeys.includes(namedSize))
    engineFinding(
      "size-unknown",
      `size '${namedSize}' is not one of ${sizeKeys.join(", ")}; reviewed as '${size}'`,
    );

  const files = new Set(input.files.keys());
  const readCache = new Map<string, string | undefined>();
  const readFile = (path: string): string | undefined => {
    if (readCache.has(path)) return readCache.get(path);
    let content: Uint8Array | string | undefined = input.files.get(path);
    if ((content === undefined || content === "") && input.readFile) {
      try {
        content = input.readFile(path) ?? content;
      } catch {
        content = undefined;
      }
    }
    const text = content === undefined ? undefined : decodeText(content).text;
    readCache.set(path, text);
    return text;
  };
  profile.checks.forEach((entry, position) => {
    if (skip.has(entry.slug)) return;
    const kind = checkKind(entry.kind);
    const params = paramsOf(entry);
    if (!kind || !params.ok) {
      engineFinding(
        "check-failed",
        `'${entry.slug}': ${params.ok ? `unknown check kind '${entry.kind}'` : params.error}`,
      );
      return;
    }
    const relaxed = adopting && entry.relaxed;
    const level = relaxed ? lowerLevel(entry.level) : entry.level;
    const template = entry.message ?? kind.defaultMessage;
    const ctx: CheckContext<unknown> = {
      doc,
      file,
      files,
      readFile,
      ...(input.repo ? { repo: input.repo } : {}),
      params: params.value,
      profile: profile,
      size,
      entry,
      finding(fi: FindingInput): Finding {
        return {
          id: "",
          check: entry.slug,
          level: fi.level ?? level,
          category: entry.category,
          message: fill(template, { ...fi.vars, detail: fi.detail ?? "" }),
          anchor: anchorAt(doc, file, fi.charStart, fi.charEnd),
          relaxed: fi.level === undefined && relaxed,
        };
      },
    };
    try {
      for (const f of kind.check(ctx)) {
        findings.push(f);
        order.set(f, position);
      }
    } catch (err) {
      engineFinding("check-failed", `'${entry.slug}': ${err instanceof Error ? err.message : String(err)}`);
    }
  });

  dedupeFindings(findings, order, profile, [doc.index.byteOf(docRange[0]), doc.index.byteOf(docRange[1])]);

  // Nothing a file holds may keep a run from being stored: anchors are already safe.
  for (const f of findings) {
    f.message = safeText(f.message);
    f.category = safeText(f.category);
  }
  findings.sort(
    (a, b) => a.anchor.start - b.anchor.start || order.get(a)! - order.get(b)! || a.anchor.end - b.anchor.end,
  );
  assignIds(findings, doc);
  const result: LintResult = {
    file,
    profile_key: profile.key,
    size,
    findings,
    relaxed_count: findings.filter((f) => f.relaxed).length,
    assumptions: assumptions(doc, file),
  };
  if (adopting) result.adopt = adopt;
  return result;
}
