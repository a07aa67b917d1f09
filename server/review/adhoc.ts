/** Ad-hoc reviews of files that are not saved (POST /reviews), kept 90 days for the report. */
import { randomUUID } from "node:crypto";
import { eq, lt } from "drizzle-orm";
import { lintBundle } from "../../core/lint/index.js";
import { runReview, type ReviewOutcome } from "../../core/review/pipeline.js";
import { computeVerdict, type Verdict } from "../../core/verdict/index.js";
import { decodeText } from "../../core/lint/engine.js";
import { adhocReviews } from "../db/schema.js";
import { ApiError, NotFoundError } from "../errors.js";
import { readSettings } from "../settings.js";
import { DbStepCache } from "./cache.js";
import { textFiles } from "./bundle.js";
import { estimateReview } from "../../core/review/estimate.js";
import {
  ReviewBase,
  ROLES,
  profileBrief,
  mergeFindings,
  questionApi,
  retryOf,
  reviewRoles,
} from "./common.js";
import { findingApi } from "../findings.js";
import type { Profile } from "../../core/profile/schema.js";

/** The service's profiles, or the given ones instead. */
function profileSet(
  service: { list(): Profile[]; get(key: string): Profile | undefined },
  only: readonly Profile[] | undefined,
): { list(): Profile[]; get(key: string): Profile | undefined } {
  if (!only) return service;
  return { list: () => [...only], get: (key) => only.find((p) => p.key === key) };
}

/** How long POST /reviews keeps the files and result. */
export const ADHOC_TTL_DAYS = 90;

export class AdhocReviews extends ReviewBase {
  // ---------------------------------------------------------- ad-hoc reviews

  async purgeExpired(): Promise<number> {
    const gone = await this.db
      .delete(adhocReviews)
      .where(lt(adhocReviews.expiresAt, this.deps.clock.now()))
      .returning({ id: adhocReviews.id });
    return gone.length;
  }

  /** Review files that are not saved; changes no bundle. */
  async adhoc(
    body: {
      files: Array<{ path: string; content: string; encoding?: "text" | "base64" }>;
      main_path?: string;
      full?: boolean;
    },
    by: string,
    /**
     * `signal` stops the model calls (the App drops a pull request's review when a newer push
     * comes); `profiles` replace the service's (a pull request's: its base branch's
     * repository profiles over the workspace's and the built-ins, app/pr-profiles.ts).
     */
    opts: { signal?: AbortSignal; profiles?: readonly Profile[] } = {},
  ) {
    await this.purgeExpired();
    const { clock } = this.deps;
    const profiles = profileSet(this.deps.profiles, opts.profiles);
    const files = new Map<string, Uint8Array>();
    for (const f of body.files) {
      const path = f.path.replace(/^\.?\/+/, "");
      if (path === "" || path.split("/").includes("..") || path.includes("\0") || path.includes("\\"))
        throw new ApiError(
          "bad_path",
          `path ${JSON.stringify(f.path)} is not a relative path inside the bundle`,
        );
      if (files.has(path)) throw new ApiError("validation_failed", `the file ${path} is sent twice`);
      files.set(
        path,
        f.encoding === "base64"
          ? new Uint8Array(Buffer.from(f.content, "base64"))
          : new TextEncoder().encode(f.content),
      );
    }
    const markdown = [...files.keys()].filter((p) => /\.(md|markdown)$/i.test(p)).sort();
    const typed = markdown.filter((p) =>
      /^type\s*:/m.test(decodeText(files.get(p)!).text.split(/^---\s*$/m)[1] ?? ""),
    );
    const mainPath = body.main_path ?? (typed.length === 1 ? typed[0]! : markdown[0]);
    if (!mainPath || !files.has(mainPath))
      throw new ApiError(
        "validation_failed",
        "main_path names no file of the request, and no markdown file was found",
      );
    const id = randomUUID();
    const now = clock.now();
    const lint = lintBundle({ files, mainPath, profiles: profiles.list() });
    const profile = profiles.get(lint.profile_key);
    const radar = profile?.radar.map((r) => r.key);
    let outcome: ReviewOutcome | undefined;
    if (body.full) {
      const roles = await this.roles();
      await this.checkBudget();
      outcome = await runReview({
        bundle: { files: textFiles(files), mainPath, linked: [] },
        profile: profileBrief(profile, lint.profile_key),
        roles: reviewRoles(roles),
        parallel: (await readSettings(this.db)).parallel_calls,
        ...retryOf(this.deps.models),
        cache: new DbStepCache(this.db, clock),
        budget: this.budgetGate(),
        ...(opts.signal ? { signal: opts.signal } : {}),
        now: () => performance.now(),
      });
      if (outcome.status === "failed")
        throw new ApiError(
          outcome.error!.code === "budget_exceeded" ? "budget_exceeded" : "model_failed",
          outcome.error!.message,
        );
    }
    const merged = mergeFindings(lint.findings, outcome?.findings ?? []);
    const verdict = computeVerdict({
      findings: merged,
      kind: body.full ? "full" : "lint",
      runId: id,
      versionNumber: 0,
      radarCategories: radar,
      ...(body.full ? { aiRunId: id } : {}),
    });
    const expires = new Date(now.getTime() + ADHOC_TTL_DAYS * 86_400_000);
    const result = {
      id,
      main_path: mainPath,
      profile_key: lint.profile_key,
      verdict,
      findings: merged.map((f) => findingApi(id, f)),
      ...(outcome
        ? {
            questions: outcome.questions.map(questionApi),
            claims: outcome.claims.map((c) => ({
              id: c.id,
              text: c.text,
              label: c.label,
              explanation: c.explanation,
              anchor: c.anchor,
              sources: c.sources,
            })),
            stages: outcome.stages,
          }
        : {}),
      report_url: `/api/v1/reviews/${id}/report`,
      created_at: now.toISOString(),
      expires_at: expires.toISOString(),
    };
    await this.db.insert(adhocReviews).values({
      id,
      mainPath,
      files: body.files.map((f) => ({ path: f.path, content: f.content, encoding: f.encoding ?? "text" })),
      result,
      createdBy: by,
      createdAt: now,
      expiresAt: expires,
    });
    return result;
  }

  /**
   * What a full ad-hoc review of `files` would cost in tokens (the estimate POST
   * /docs/{docId}/estimate gives for a saved doc), before anything is called.
   */
  async estimateFiles(files: ReadonlyMap<string, Uint8Array>, mainPath: string, only?: readonly Profile[]) {
    const profiles = profileSet(this.deps.profiles, only);
    const lint = lintBundle({ files: new Map(files), mainPath, profiles: profiles.list() });
    const [reviewer, reader, judge] = await Promise.all(ROLES.map((r) => this.deps.models.forRole(r)));
    const est = await estimateReview({
      bundle: { files: textFiles(files), mainPath, linked: [] },
      profile: profileBrief(profiles.get(lint.profile_key), lint.profile_key),
      models: { reviewer: reviewer?.model ?? "", reader: reader?.model ?? "", judge: judge?.model ?? "" },
      cache: new DbStepCache(this.db, this.deps.clock),
    });
    return { calls: est.calls, tokens_in: est.tokens_in, tokens_out: est.tokens_out };
  }

  async adhocResult(reviewId: string): Promise<AdhocResult> {
    await this.purgeExpired();
    const [row] = await this.db.select().from(adhocReviews).where(eq(adhocReviews.id, reviewId));
    if (!row) throw new NotFoundError("review", reviewId);
    return row.result as AdhocResult;
  }
}

export interface AdhocResult {
  id: string;
  main_path: string;
  profile_key: string;
  verdict: Verdict;
  findings: ReturnType<typeof findingApi>[];
  questions?: Array<{
    number: number;
    text: string;
    level: string;
    result: string;
    groups: number[][];
    answers: Array<{ reader: number; answer: string; answered: boolean }>;
  }>;
  claims?: Array<{ text: string; label: string; explanation: string }>;
  report_url: string;
  created_at: string;
  expires_at: string;
}
