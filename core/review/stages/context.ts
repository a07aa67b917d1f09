/** What every stage of one review shares: the corpus, the profile, the step runner, ids and events. */
import type { Anchor } from "../../anchor/anchor.js";
import { IdCounter, findingKey, stableId } from "../../lint/ids.js";
import type { Corpus } from "../corpus.js";
import type { ProfileBrief } from "../prompts.js";
import { ReviewError, type StepRunner } from "../steps.js";
import type { AiFinding, AiStage, Grounding, ReviewEvent, ReviewRoles } from "../types.js";

/** Ids that stay the same for the same text, told apart by order when equal. */
export class IdMaker extends IdCounter {
  /** `asKey`: the anchor as ids read it (the main doc's, with CRLF read as LF: lfAnchorView). */
  constructor(private readonly asKey: (a: Anchor) => Anchor = (a) => a) {
    super();
  }

  /** What a finding's id is made of (findingKey). */
  key(check: string, anchor: Anchor): string[] {
    return findingKey(check, this.asKey(anchor));
  }

  /** A finding's id: what it is (check) and where (findingKey), never the model's wording. */
  finding(check: string, anchor: Anchor): string {
    return this.make(this.key(check, anchor));
  }

  /** The same, told apart by a given order (for findings made concurrently, whose arrival order varies). */
  nth(check: string, anchor: Anchor, n: number): string {
    return stableId([...this.key(check, anchor), String(n)]);
  }
}

export interface StageContext {
  corpus: Corpus;
  profile: ProfileBrief;
  /** Readers per question (at least 1). */
  readers: number;
  roles: ReviewRoles;
  runner: StepRunner;
  ids: IdMaker;
  /** Web search for claims, when a search connection is configured. */
  grounding?: Grounding;
  /** More steps of a stage are known to come (progress totals). */
  plan(stage: AiStage, n: number): void;
  emit(event: ReviewEvent): void;
  addFinding(finding: AiFinding): void;
  /**
   * A step's answer was invalid twice: only its item is lost and the review goes on. The
   * first such error of each stage is kept (it names the stage if the whole stage is lost).
   * Any other error (the model unreachable, the budget, a cancel) is thrown on.
   */
  lose(stage: AiStage, err: unknown): void;
}

/** Run a step; undefined when its answer was lost (invalid twice). */
export async function tolerant<T>(ctx: StageContext, stage: AiStage, step: () => Promise<T>) {
  try {
    return await step();
  } catch (err) {
    ctx.lose(stage, err);
    return undefined;
  }
}

export const isLostAnswer = (err: unknown): err is ReviewError =>
  err instanceof ReviewError && err.code === "model_output_invalid";
