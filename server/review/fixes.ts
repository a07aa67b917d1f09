/** Suggested fixes for findings, and applying them as a new version. */
import { and, eq } from "drizzle-orm";
import { applyPatch, createPatch } from "diff";
import { parseMarkdown, sectionAtChar } from "../../core/markdown/document.js";
import { SYSTEM, fixPrompt } from "../../core/review/prompts.js";
import { fixAnswer } from "../../core/review/schemas.js";
import { decodeText } from "../../core/lint/engine.js";
import { docs, findingFixes, findings } from "../db/schema.js";
import { ApiError, NotFoundError } from "../errors.js";
import { ReviewBase } from "./common.js";

export class FixService extends ReviewBase {
  // ------------------------------------------------------------------- fixes

  private async findingOf(runId: string, findingId: string) {
    const run = await this.deps.runs.get(runId);
    const [f] = await this.db
      .select()
      .from(findings)
      .where(and(eq(findings.runId, runId), eq(findings.id, findingId)));
    if (!f) throw new NotFoundError("finding", findingId);
    return { run, f };
  }

  /** Ask the reviewer for a patch for one finding; the doc does not change. */
  async fix(runId: string, findingId: string) {
    const { run, f } = await this.findingOf(runId, findingId);
    const { reviewer } = await this.roles(["reviewer"]);
    const anchor = f.anchor ?? undefined;
    const [doc] = await this.db.select().from(docs).where(eq(docs.id, run.docId));
    const file = anchor?.file ?? doc!.path;
    const { bytes } = await this.deps.store.fileBytes(run.versionId, file);
    const text = decodeText(bytes).text;
    const md = parseMarkdown(text);
    const section = sectionAtChar(md, anchor ? md.index.charOf(anchor.start) : md.bodyCharStart);
    const sectionText = text.slice(
      section.index === 0 ? md.bodyCharStart : section.charStart,
      section.charEnd,
    );
    const schema = fixAnswer.superRefine((v, ctx) => {
      if (!text.includes(v.find))
        ctx.addIssue({ code: "custom", path: ["find"], message: "find is not verbatim text of the doc" });
      if (v.find === v.replace)
        ctx.addIssue({ code: "custom", path: ["replace"], message: "replace changes nothing" });
    });
    const answer = await this.step({
      stage: "fix",
      role: { client: reviewer.client, model: reviewer.model },
      system: SYSTEM.fix,
      prompt: fixPrompt(
        { level: f.level, message: f.message, quote: anchor?.quote ?? "" },
        file,
        sectionText,
      ),
      schemaName: "finding_fix",
      schema,
      expectedTokensOut: 400,
    });
    const within = text.indexOf(answer.find, section.charStart);
    const at = within >= 0 && within < section.charEnd ? within : text.indexOf(answer.find);
    const after = text.slice(0, at) + answer.replace + text.slice(at + answer.find.length);
    const patch = createPatch(file, text, after, `version ${run.versionNumber}`, "fixed");
    await this.db
      .insert(findingFixes)
      .values({
        runId,
        findingId,
        file,
        patch,
        explanation: answer.explanation,
        createdAt: this.deps.clock.now(),
      })
      .onConflictDoUpdate({
        target: [findingFixes.runId, findingFixes.findingId],
        set: { file, patch, explanation: answer.explanation, createdAt: this.deps.clock.now() },
      });
    return { finding_id: findingId, file, patch, explanation: answer.explanation, version_id: run.versionId };
  }

  /** Apply a finding's suggested patch on `base` as a new version. */
  async acceptFix(runId: string, findingId: string, base: string, author: string) {
    const { run, f } = await this.findingOf(runId, findingId);
    const [fix] = await this.db
      .select()
      .from(findingFixes)
      .where(and(eq(findingFixes.runId, runId), eq(findingFixes.findingId, findingId)));
    if (!fix)
      throw new ApiError("fix_not_suggested", `no fix was asked for finding ${findingId}; POST …/fix first`);
    const { store } = this.deps;
    const version = await store.resolveVersion(run.bundleId, base);
    const { bytes } = await store.fileBytes(version.id, fix.file).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === "file_not_found")
        throw new ApiError("patch_conflict", `${fix.file} is not in version ${version.number}`);
      throw err;
    });
    const patched = applyPatch(decodeText(bytes).text, fix.patch);
    if (patched === false)
      throw new ApiError(
        "patch_conflict",
        `the patch for finding ${findingId} no longer applies to ${fix.file} at version ${version.number}; ask for a new fix`,
      );
    return store.write(
      run.docId,
      base,
      [{ path: fix.file, bytes: new TextEncoder().encode(patched) }],
      author,
      `Fix: ${f.message}`.slice(0, 200),
    );
  }
}
