/**
 * Shared section vocabularies: the names real docs give one role. A heading pattern names
 * a vocabulary with `@name` ("Reference-level explanation|@design"), so every profile
 * answers to the same words for the design or the decision instead of copying lists.
 *
 * Each entry is a heading-pattern name (see helpers.ts): a name, a `prefix*` or a `/regex/`
 * tested on the normalized heading (lowercase words of letters and digits).
 */

/** Where a decision is recorded: an ADR's decision, or a proposal's own proposal. */
const DECISION = [
  "Decision",
  "Decisions",
  "Decision outcome",
  "Outcome",
  "Chosen option",
  "Resolution",
  "Proposal",
  "Proposal details",
  "Proposed*",
  "/^what(?: s| is| we re| we are)? propos/",
  "/^(?:what|how) we (?:decided|will do|are going to do)\\b/",
  "Solution",
  "Approach",
];

/** Where a proposal's design lives, under any of the names teams use. */
const DESIGN = [
  ...DECISION,
  "Design*",
  "Detailed design",
  "Detail design",
  "Technical design",
  "Design details",
  // "Draft design", "High-level design", "API design", not "Alternative designs" nor "Current design".
  "/^(?!(?:alternative|alternatives|rejected|other|previous|prior|earlier|future|old|existing|current|original)\\b)(?:[\\p{L}\\p{N}]+ ){0,3}design$/u",
  "Reference-level explanation",
  "Guide-level explanation",
  "Explanation",
  "Specification",
  "/^(?:technical|detailed|formal|language|api) specification$/",
  "Implementation",
  "Implementation details",
  "Architecture",
  "Changes*",
  // "API changes", "Overview of type and protocol changes", not "Breaking changes" nor "History of changes".
  "/^(?!.*\\b(?:breaking|history|log|future|no|other)\\b).*\\b(?:api|type|protocol|library|language|syntax|semantic|proposed|detailed|planned|code|model|interface) changes$/",
  "Semantics",
  "Syntax",
];

/**
 * Sections that are about the design without being it: the motivation before it, the
 * alternatives and compatibility after it, and the doc's apparatus. A doc whose own
 * headings hold substantial content outside these (and outside its profile's other
 * roles) writes its design under its own names.
 */
export const NOT_DESIGN = [
  "Summary",
  "Abstract",
  "Introduction",
  "Overview",
  "TL;DR",
  "TLDR",
  "Motivation*",
  "Background*",
  "Context*",
  "Problem*",
  "The problem",
  "Goals",
  "Non-goals",
  "Objectives",
  "Scope",
  "Out of scope",
  "Use cases",
  "User stories",
  "Requirements",
  "Alternatives*",
  "Alternative*",
  "Appendix*",
  "Prior*",
  "Goal",
  "Conclusion*",
  "/\\balternatives?(?: considered)?$/",
  "Rationale*",
  "Drawbacks",
  "Downsides",
  "Risks*",
  "Prior art",
  "Related work",
  "/^(?:revision |change )?history$/",
  "Changelog",
  "Acknowledg*",
  "Credits",
  "References",
  "Links",
  "See also",
  "Future*",
  "/^(?:open|unresolved|outstanding) (?:questions|issues)$/",
  "Discussion*",
  "/\\bcompatibility$/",
  "Effect on*",
  "Impact*",
  "Implications*",
  "Migration*",
  "Testing*",
  "Test plan",
  "Status",
  "Metadata",
  "Authors",
  "Table of contents",
  "Contents",
  "FAQ",
  "Glossary",
  "Terminology",
  "Definitions",
  "Evaluation",
  "Advantages*",
  "Disadvantages*",
  "Pros and cons*",
  "Consequences",
  "Decision drivers",
  "Considered options",
  "Community responses",
  "Mailing list",
  "Reviewer notes",
  "Notes",
  "Examples",
  "Example",
];

export const SECTION_VOCABULARIES: Readonly<Record<string, readonly string[]>> = {
  design: DESIGN,
  decision: DECISION,
  "not-design": NOT_DESIGN,
};
