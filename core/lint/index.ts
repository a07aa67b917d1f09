/**
 * The lint stage, public API. Everything the server, the CLI and the Action call:
 *
 * - `lintBundle({ files, mainPath, profile?, profiles? })` -> `{ findings, adopt?, relaxed_count, assumptions, profile_key, size }`
 *   Synchronous and pure; findings in document order with stable ids (docs/findings.md).
 * - `lintDoc(doc, input)`: the same on a doc already parsed with parseMarkdown.
 * - `assumptions(doc, file)`: the `Assumption:` sentences, anchored.
 * - `adoptFrontmatter(text, adopt)`: write the guessed `type`/`size` into the frontmatter.
 * - `toSarif(...)`: SARIF 2.1.0 for code scanning.
 * - `CHECK_KINDS`: the check kinds and their option schemas.
 *
 * Verdicts and bundle state live in core/verdict; profiles in core/profile.
 */
export {
  lintBundle,
  lintDoc,
  decodeText,
  assumptions,
  engineCategory,
  ENGINE_CHECKS,
  type LintInput,
  type LintResult,
  type Adopt,
  type Assumption,
  type EngineCheck,
} from "./engine.js";
export { adoptFrontmatter, adoptionNote, FrontmatterInvalidError, type AdoptionSummary } from "./adopt.js";
export { toSarif, type SarifDoc, type SarifLog } from "./sarif.js";
export { CHECK_KINDS, checkKind } from "./checks/index.js";
export {
  LEVELS,
  lowerLevel,
  type Finding,
  type Level,
  type CheckKind,
  type CheckContext,
  type FindingInput,
  type RepoView,
} from "./types.js";
export { stableId } from "./ids.js";
