/** Shared by the parts of the review service: roles, budget, one-off steps, finding shapes. */
import type { z } from "zod";
import type { Finding } from "../../core/lint/types.js";
import type { AiFinding, ReviewRoles } from "../../core/review/pipeline.js";
import type { ProfileBrief } from "../../core/review/prompts.js";
import { ReviewError, StepRunner, type BudgetGate } from "../../core/review/steps.js";
import type { Profile } from "../../core/profile/schema.js";
import type { Db } from "../db/index.js";
import type { Deps } from "../deps.js";
import { ApiError } from "../errors.js";
import type { ModelRoles, RoleName, RoleModel } from "../models/types.js";
import { DbStepCache } from "./cache.js";
import { redact } from "../redact.js";
import type { RunFinding } from "../findings.js";

export const ROLES: readonly RoleName[] = ["reviewer", "reader", "judge"];

export function profileBrief(profile: Profile | undefined, key: string): ProfileBrief {
  return {
    key,
    title: profile?.title ?? key,
    radar: profile?.radar.map((r) => r.key) ?? [],
    readers: profile?.review.readers ?? 3,
    build_questions: profile?.review.build_questions ?? [],
    guidance: profile?.review.guidance ?? "",
  };
}

/** Lint findings and AI findings together, in document order (lint first at the same place). */
export function mergeFindings(lint: readonly Finding[], ai: readonly AiFinding[]): RunFinding[] {
  const all: Array<RunFinding & { k: number }> = [
    ...lint.map((f, i) => ({ ...f, stage: "lint", k: i })),
    ...ai.map((f, i) => ({ ...f, stage: f.stage, k: lint.length + i })),
  ];
  all.sort((a, b) => a.anchor.start - b.anchor.start || a.k - b.k);
  return all.map(({ k: _k, ...f }) => f);
}

export function errorText(e: ReviewError | ApiError): string {
  return redact(`${e.code}: ${e.message}`);
}

/** What every part of the review service shares: the deps, the roles, the budget and one-off steps. */
export class ReviewBase {
  constructor(protected readonly deps: Deps) {}

  protected get db(): Db {
    return this.deps.db;
  }

  protected budgetGate(): BudgetGate {
    const { budget, clock } = this.deps;
    return {
      remaining: () => budget.remaining(clock.now()),
      record: (i, o) => budget.record(clock.now(), i, o),
    };
  }

  /** The models of the review roles; `model_not_configured` names the roles without one. */
  async roles(needed: readonly RoleName[] = ROLES): Promise<Record<RoleName, RoleModel>> {
    const found = await Promise.all(needed.map((r) => this.deps.models.forRole(r)));
    const missing = needed.filter((_, i) => !found[i]);
    if (missing.length > 0)
      throw new ApiError(
        "model_not_configured",
        `the ${missing.join(", ")} role${missing.length === 1 ? " has" : "s have"} no model; assign one with PUT /admin/roles/{role}`,
        { roles: missing },
      );
    return Object.fromEntries(needed.map((r, i) => [r, found[i]!])) as Record<RoleName, RoleModel>;
  }

  protected async checkBudget(): Promise<void> {
    const left = await this.deps.budget.remaining(this.deps.clock.now());
    if (left !== undefined && left <= 0)
      throw new ApiError(
        "budget_exceeded",
        "this month's token budget is used up; raise it with PUT /admin/budget",
      );
  }

  protected runner(parallel = 1) {
    return new StepRunner({
      parallel,
      cache: new DbStepCache(this.db, this.deps.clock),
      budget: this.budgetGate(),
    });
  }

  protected async step<S extends z.ZodType>(
    req: Parameters<StepRunner["run"]>[0] & { schema: S },
  ): Promise<z.output<S>> {
    await this.checkBudget();
    try {
      return (await this.runner().run(req)).value;
    } catch (err) {
      if (err instanceof ReviewError)
        throw new ApiError(err.code === "budget_exceeded" ? "budget_exceeded" : "model_failed", err.message);
      throw err;
    }
  }
}

/** The step runner's call limit, when the service's call timeout is configured. */
export function retryOf(models: ModelRoles) {
  const retry = models.reviewRetry?.();
  return retry ? { retry } : {};
}

export function reviewRoles(roles: Record<RoleName, RoleModel>): ReviewRoles {
  return {
    reviewer: { client: roles.reviewer.client, model: roles.reviewer.model },
    reader: { client: roles.reader.client, model: roles.reader.model },
    judge: { client: roles.judge.client, model: roles.judge.model },
  };
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** A build question as the API shows it (2.16), from a stored row or a run's outcome. */
type QuestionFields = "id" | "number" | "text" | "level" | "cites" | "result" | "answers" | "groups";
export function questionApi<Q extends Record<QuestionFields, unknown>>(q: Q): Pick<Q, QuestionFields> {
  return {
    id: q.id,
    number: q.number,
    text: q.text,
    level: q.level,
    cites: q.cites,
    result: q.result,
    answers: q.answers,
    groups: q.groups,
  };
}
