/**
 * How the review pipeline reaches models: a role (reviewer, reader, judge) resolves to
 * a configured backend and model. Implemented by server/models (backends and roles kept
 * in the database, secrets encrypted); the pipeline only sees these interfaces.
 */
import type { ModelClient } from "../../core/review/model.js";

export type RoleName = "reviewer" | "reader" | "judge";

export interface RoleModel {
  role: RoleName;
  client: ModelClient;
  model: string;
  backendId: string;
  /** USD per million input / output tokens, when the role has prices. */
  priceInPerMTok?: number;
  priceOutPerMTok?: number;
}

export interface ModelRoles {
  /** The backend and model assigned to a role; undefined when the role has none. */
  forRole(role: RoleName): Promise<RoleModel | undefined>;
  /** The review step runner's limit on one call, when the call timeout is configured. */
  reviewRetry?(): { timeoutMs: number } | undefined;
}

export interface Budget {
  /** Tokens left this month; undefined when there is no limit. */
  remaining(now: Date): Promise<number | undefined>;
  /** Count tokens against this month's use. */
  record(now: Date, tokensIn: number, tokensOut: number): Promise<void>;
}

/** Until backends are configured: no role has a model, and there is no budget. */
export const noModels: ModelRoles = { forRole: () => Promise.resolve(undefined) };
export const noBudget: Budget = {
  remaining: () => Promise.resolve(undefined),
  record: () => Promise.resolve(),
};
