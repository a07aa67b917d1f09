/**
 * Types shared by the lint engine and its checks. Findings are documented in docs/findings.md.
 */
import type { z } from "zod";
import type { Anchor } from "../anchor/anchor.js";
import type { MarkdownDoc } from "../markdown/document.js";
import type { Profile, ProfileCheck } from "../profile/schema.js";

export type Level = "MUST" | "SHOULD" | "INFO";

export const LEVELS: readonly Level[] = ["MUST", "SHOULD", "INFO"];

/** One level lower: MUST -> SHOULD -> INFO (INFO stays INFO). */
export function lowerLevel(level: Level): Level {
  return level === "MUST" ? "SHOULD" : "INFO";
}

export interface Finding {
  /** Stable across re-lints of unchanged text: a hash of file, check slug, heading path, quote and occurrence. UUID-shaped. */
  id: string;
  /** Slug of the profile check (or of an engine check such as `frontmatter-invalid`). */
  check: string;
  /** The level reported (after relaxing). */
  level: Level;
  /** A radar key of the profile. */
  category: string;
  message: string;
  anchor: Anchor;
  /** True when the level was lowered because the doc is in adoption mode. */
  relaxed: boolean;
}

/** Where a check points: a string range of the doc's text, plus words for the message. */
export interface FindingInput {
  charStart: number;
  charEnd: number;
  /** Substituted for `{detail}` in the message; appended when the message has no placeholder. */
  detail?: string;
  /** More `{name}` placeholders. */
  vars?: Record<string, string>;
  /**
   * The level of this finding instead of the entry's (never relaxed in adoption mode): a
   * check that reads context may report one case lower, or insist on the profile's level.
   */
  level?: Level;
}

/**
 * What the caller knows of the files around a bundle. The core never reads a disk: the
 * CLI and the Action answer from the checkout, the server from the served folder.
 */
export interface RepoView {
  /** Path of the bundle folder from the repository root, posix, "" for the root. */
  bundlePath: string;
  /** Does this repository path (posix, no leading "/") name a file or a folder? */
  exists(path: string): boolean;
  /**
   * False when the folder taken as the root may be part of a larger repository (no `.git`
   * marks it): a root-absolute link it does not hold cannot be judged broken. Default: known.
   */
  rootKnown?: boolean;
}

export interface CheckContext<P> {
  doc: MarkdownDoc;
  /** Path of the doc, relative to its bundle. */
  file: string;
  /** Every file of the bundle, relative to the bundle folder (posix). */
  files: ReadonlySet<string>;
  /** Text of another file of the bundle (bundle-relative posix path), or undefined when it is absent or its content was not handed in. */
  readFile(path: string): string | undefined;
  /** The repository (or served folder) around the bundle, when the caller knows it: links that leave the bundle resolve there. */
  repo?: RepoView;
  /** The check's parameters, validated by its options schema. */
  params: P;
  profile: Profile;
  /** The size the doc is reviewed at. */
  size: string;
  /** The profile entry being run. */
  entry: ProfileCheck;
  /** Build a finding of this check at a range. */
  finding(input: FindingInput): Finding;
}

export interface CheckKind<S extends z.ZodType = z.ZodType> {
  /** The `kind` a profile names. */
  kind: string;
  /** One line for docs and the JSON Schema. */
  description: string;
  /** Schema of `params`; its defaults fill what a profile leaves out. */
  options: S;
  /** Message used when the profile entry gives none. May use `{detail}` and the kind's own placeholders. */
  defaultMessage: string;
  /** Never throws for a finding: returns them, in any order. */
  check(ctx: CheckContext<z.output<S>>): Finding[];
}
