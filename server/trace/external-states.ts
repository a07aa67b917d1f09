/**
 * States of a bundle's external links (contract 2.8: `aligned`, `drifted`, `conflicting`,
 * `unchecked`), as the last full review that read each target recorded them. The review
 * that reads external targets stores them; until it has, every external link is
 * `unchecked` (see `uncheckedState`).
 */
import type { Db } from "../db/index.js";

export type ExternalState = "aligned" | "drifted" | "conflicting" | "unchecked";

export interface ExternalLinkState {
  state: ExternalState;
  state_reason: string;
  /** When a run last read the target (ISO date-time). */
  checked_at: string;
}

/** The recorded state of each external target of the bundle, by `target_url`. None recorded yet. */
export function externalLinkStates(db: Db, bundleId: string): Promise<Map<string, ExternalLinkState>> {
  void db;
  void bundleId;
  return Promise.resolve(new Map<string, ExternalLinkState>());
}

/** What an external link without a recorded state shows. */
export const uncheckedState = {
  state: "unchecked",
  state_reason: "not checked yet: a full review reads external targets",
} as const;
