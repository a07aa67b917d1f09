/**
 * States of a bundle's external links (contract 2.8: `aligned`, `drifted`, `conflicting`,
 * `unchecked`), as the last full review that read each target recorded them
 * (server/mcp/link-checks.ts). A link no review has read yet is `unchecked` (`uncheckedState`).
 */
export {
  linkCheckStates as externalLinkStates,
  type LinkCheckState as ExternalLinkState,
} from "../mcp/link-checks.js";

/** What an external link without a recorded state shows. */
export const uncheckedState = {
  state: "unchecked",
  state_reason: "not checked yet: a full review reads external targets",
} as const;
