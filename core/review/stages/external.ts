/**
 * Stage 6, external links (reviewer, one call per external target that was read): does the
 * spec agree with the page, issue or code it links to? Pure: it is handed the targets'
 * texts (the server reads them, server/mcp/targets.ts) and the doc. A target that could
 * not be read is `unchecked` with the reason, and asks nothing.
 *
 * - `aligned`: the target says what the doc says about it, or nothing the doc relies on differs;
 * - `drifted`: the target moved on: it differs in details or says more than the doc reflects,
 *   without contradicting it;
 * - `conflicting`: the target says something the doc contradicts.
 *
 * An answer invalid twice leaves the link `unchecked` (it never fails the review).
 */
import { z } from "zod";
import { sectionLabel } from "../corpus.js";
import { FENCE_SYSTEM, fenceFor } from "../fence.js";
import type { StageContext } from "./context.js";
import { isLostAnswer } from "./context.js";

export type LinkState = "aligned" | "drifted" | "conflicting" | "unchecked";

/** One external target of the doc, as the server read it. */
export interface ExternalTarget {
  url: string;
  /** The target's text, when it was read. */
  text?: string;
  /** Why it was not read (`unreachable: …`, `disallowed: …`, `too_large: …`). */
  unread?: string;
  /** For a code target: the commit that was read, when known. */
  commit?: string;
}

/** What the review found for one external target. */
export interface LinkCheck {
  url: string;
  state: LinkState;
  state_reason: string;
  commit?: string;
}

/** The doc and the target are each cut to this many characters in the prompt. */
export const MAX_PROMPT_CHARS = 40_000;

export const externalLinkAnswer = z.strictObject({
  state: z
    .enum(["aligned", "drifted", "conflicting"])
    .describe(
      "aligned: the target agrees with what the doc says about it; drifted: the target differs in details " +
        "or says more than the doc reflects, without contradicting it; conflicting: they contradict each other",
    ),
  explanation: z.string().min(3).describe("what agrees or differs, in one or two sentences"),
});

export const EXTERNAL_SYSTEM =
  "You compare a specification with an outside document it links to (a page, an issue or code) and say " +
  `whether they still agree. ${FENCE_SYSTEM} Answer with JSON only.`;

function cut(text: string): string {
  return text.length <= MAX_PROMPT_CHARS
    ? text
    : `${text.slice(0, MAX_PROMPT_CHARS)}\n[… ${text.length - MAX_PROMPT_CHARS} more characters left out]`;
}

export function externalPrompt(docText: string, target: { url: string; text: string }): string {
  const doc = cut(docText);
  const outside = cut(target.text);
  const f = fenceFor(doc, outside, target.url);
  return (
    `The specification links to ${target.url}. Compare what the specification says about the subject of ` +
    `that target with what the target says. aligned: they agree; drifted: the target differs in details or ` +
    `says more than the specification reflects, without a contradiction; conflicting: they contradict each ` +
    `other. Explain in one or two sentences, naming the statements that differ. ${f.rule}\n\n` +
    `Specification:\n${f.wrap(doc, "spec")}\n\nTarget (${target.url}):\n${f.wrap(outside, "target")}`
  );
}

/** The main doc as the stage shows it: its sections in order. */
export function docText(ctx: StageContext): string {
  return ctx.corpus.mainSections.map((s) => `=== ${sectionLabel(s)} ===\n${s.text}`).join("\n\n");
}

export function externalStep(ctx: StageContext, target: { url: string; text: string }) {
  return {
    stage: "external",
    role: ctx.roles.reviewer,
    system: EXTERNAL_SYSTEM,
    prompt: externalPrompt(docText(ctx), target),
    schemaName: "external_link",
    schema: externalLinkAnswer,
    expectedTokensOut: 120,
  };
}

/** Check one target; a model that cannot be reached (or a cancel) is thrown on, like every stage. */
export async function checkExternal(ctx: StageContext, target: ExternalTarget): Promise<LinkCheck> {
  const commit = target.commit ? { commit: target.commit } : {};
  if (target.text === undefined) {
    const check: LinkCheck = {
      url: target.url,
      state: "unchecked",
      state_reason: target.unread ?? "not read",
      ...commit,
    };
    ctx.emit({ type: "link", link: check });
    return check;
  }
  let check: LinkCheck;
  try {
    const { value } = await ctx.runner.run(externalStep(ctx, { url: target.url, text: target.text }));
    check = { url: target.url, state: value.state, state_reason: value.explanation, ...commit };
  } catch (err) {
    if (!isLostAnswer(err)) throw err;
    check = {
      url: target.url,
      state: "unchecked",
      state_reason: `model_output_invalid: the reviewer's answer was not usable (${err.message})`,
      ...commit,
    };
  }
  ctx.emit({ type: "link", link: check });
  return check;
}
