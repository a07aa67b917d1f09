/** The step cache in the database: model answers by sha256(stage, model, prompt). */
import { desc, eq } from "drizzle-orm";
import { historyOf, type CachedStep, type StageHistory, type StepCache } from "../../core/review/steps.js";
import type { Db } from "../db/index.js";
import { stepCache } from "../db/schema.js";
import type { Clock } from "../deps.js";

export class DbStepCache implements StepCache {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(key: string): Promise<CachedStep | undefined> {
    const [row] = await this.db.select().from(stepCache).where(eq(stepCache.key, key));
    return row
      ? {
          stage: row.stage,
          model: row.model,
          text: row.answer,
          tokensIn: row.tokensIn,
          tokensOut: row.tokensOut,
        }
      : undefined;
  }

  async put(key: string, step: CachedStep): Promise<void> {
    await this.db
      .insert(stepCache)
      .values({
        key,
        stage: step.stage,
        model: step.model,
        answer: step.text,
        tokensIn: step.tokensIn,
        tokensOut: step.tokensOut,
        createdAt: this.clock.now(),
      })
      .onConflictDoNothing();
  }

  /** The model's last 500 answers, by stage (estimates use their sizes). */
  async history(model: string): Promise<Record<string, StageHistory>> {
    const rows = await this.db
      .select({
        stage: stepCache.stage,
        text: stepCache.answer,
        tokensIn: stepCache.tokensIn,
        tokensOut: stepCache.tokensOut,
      })
      .from(stepCache)
      .where(eq(stepCache.model, model))
      .orderBy(desc(stepCache.createdAt))
      .limit(500);
    return historyOf(rows);
  }
}
