/**
 * The monthly token budget: the limit is the `budget_limit_tokens` settings row (absent or
 * null: no budget); use is counted per calendar month (`YYYY-MM`, UTC) in `token_use`.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { settings, tokenUse } from "../db/schema.js";
import type { Budget } from "./types.js";

const LIMIT_KEY = "budget_limit_tokens";

/** `YYYY-MM` of a date, in UTC. */
export function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

export interface BudgetStatus {
  month: string;
  limit_tokens: number | null;
  used_tokens_in: number;
  used_tokens_out: number;
  used_tokens: number;
  remaining_tokens: number | null;
}

export class DbBudget implements Budget {
  constructor(private readonly db: Db) {}

  async limit(): Promise<number | null> {
    const [row] = await this.db.select().from(settings).where(eq(settings.key, LIMIT_KEY));
    return typeof row?.value === "number" ? row.value : null;
  }

  async setLimit(limit: number | null, now: Date): Promise<void> {
    if (limit === null) {
      await this.db.delete(settings).where(eq(settings.key, LIMIT_KEY));
      return;
    }
    await this.db
      .insert(settings)
      .values({ key: LIMIT_KEY, value: limit, updatedAt: now })
      .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value`, updatedAt: now } });
  }

  async status(now: Date): Promise<BudgetStatus> {
    const month = monthOf(now);
    const [limit, [row]] = await Promise.all([
      this.limit(),
      this.db.select().from(tokenUse).where(eq(tokenUse.month, month)),
    ]);
    const used_tokens_in = Number(row?.tokensIn ?? 0);
    const used_tokens_out = Number(row?.tokensOut ?? 0);
    const used_tokens = used_tokens_in + used_tokens_out;
    return {
      month,
      limit_tokens: limit,
      used_tokens_in,
      used_tokens_out,
      used_tokens,
      remaining_tokens: limit === null ? null : Math.max(0, limit - used_tokens),
    };
  }

  async remaining(now: Date): Promise<number | undefined> {
    return (await this.status(now)).remaining_tokens ?? undefined;
  }

  async record(now: Date, tokensIn: number, tokensOut: number): Promise<void> {
    const tin = Math.max(0, Math.round(tokensIn));
    const tout = Math.max(0, Math.round(tokensOut));
    if (tin === 0 && tout === 0) return;
    await this.db
      .insert(tokenUse)
      .values({ month: monthOf(now), tokensIn: tin, tokensOut: tout, updatedAt: now })
      .onConflictDoUpdate({
        target: tokenUse.month,
        set: {
          tokensIn: sql`${tokenUse.tokensIn} + excluded.tokens_in`,
          tokensOut: sql`${tokenUse.tokensOut} + excluded.tokens_out`,
          updatedAt: now,
        },
      });
  }
}
