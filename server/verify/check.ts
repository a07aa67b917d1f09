/**
 * With a model configured (the reviewer role), each code target of an ID is checked
 * against the requirement's text: does this code do what the statement says (`holds`), and
 * if not, why (`fault`). Without a model the run knows presence only and says so.
 */
import type { ModelRoles, Budget } from "../models/types.js";
import type { Clock, Logger } from "../deps.js";

export interface TargetToCheck {
  path: string;
  line: number;
  context: string;
}

export interface Checker {
  /** The model that checks (`backendId/model`), for the run record. */
  readonly model: string;
  check(
    requirement: { id: string; text: string },
    target: TargetToCheck,
  ): Promise<{ holds: boolean; fault?: string }>;
}

const SCHEMA = {
  type: "object",
  properties: {
    holds: { type: "boolean", description: "true when the code does what the requirement says" },
    fault: { type: "string", description: "why it does not hold; empty when it holds" },
  },
  required: ["holds", "fault"],
  additionalProperties: false,
};

const SYSTEM =
  "You check code against one requirement of a specification. Answer only from the code shown. " +
  "`holds` is true when the code shown implements what the requirement says; otherwise false, and `fault` says in one sentence what is wrong or missing.";

/** The checker of the reviewer role, or undefined when no model is configured or the budget is spent. */
export async function modelChecker(
  models: ModelRoles,
  budget: Budget,
  clock: Clock,
  logger: Logger,
): Promise<Checker | undefined> {
  const role = await models.forRole("reviewer");
  if (!role) return undefined;
  const left = await budget.remaining(clock.now());
  if (left !== undefined && left <= 0) return undefined;
  return {
    model: role.model,
    async check(req, target) {
      const prompt =
        `Requirement ${req.id}: ${req.text}\n\n` +
        `Code at ${target.path}, around line ${target.line}:\n\`\`\`\n${target.context}\n\`\`\`\n`;
      const answer = await role.client.call({
        stage: "verify",
        model: role.model,
        system: SYSTEM,
        prompt,
        schemaName: "verify_target",
        schema: SCHEMA,
        signal: AbortSignal.timeout(60_000),
      });
      await budget.record(clock.now(), answer.tokensIn, answer.tokensOut);
      let parsed: { holds?: unknown; fault?: unknown };
      try {
        parsed = JSON.parse(answer.text) as typeof parsed;
      } catch {
        logger.warn("verification check: the model's answer is not JSON", { trace_id: req.id });
        throw new Error("the model's answer is not JSON");
      }
      if (typeof parsed.holds !== "boolean") throw new Error("the model's answer has no holds");
      const fault = typeof parsed.fault === "string" && parsed.fault.trim() ? parsed.fault.trim() : undefined;
      return parsed.holds
        ? { holds: true }
        : { holds: false, fault: fault ?? "the model says it does not hold" };
    },
  };
}
