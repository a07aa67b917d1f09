/** What changed in meaning between two versions, and the change in findings. */
import { and, desc, eq } from "drizzle-orm";
import { parseMarkdown, sectionTexts } from "../../core/markdown/document.js";
import { SYSTEM, diffPrompt } from "../../core/review/prompts.js";
import { diffSummaryAnswer } from "../../core/review/schemas.js";
import { decodeText } from "../../core/lint/engine.js";
import { findings, runs } from "../db/schema.js";
import { ReviewBase } from "./common.js";

export class DiffSummaries extends ReviewBase {
  // ------------------------------------------------------------ diff summary

  async diffSummary(docId: string, from: string, to: string | undefined) {
    const { store, runs: runService } = this.deps;
    const bundleId = await store.bundleIdOfDoc(docId);
    await store.refreshBundle(bundleId);
    const vFrom = await store.resolveVersion(bundleId, from);
    const vTo = await store.resolveVersion(bundleId, to);
    const { doc: d } = await store.doc(docId);
    const textAt = async (versionId: string) =>
      store.fileBytes(versionId, d.path).then(
        (r) => decodeText(r.bytes).text,
        () => "",
      );
    const [a, b] = await Promise.all([textAt(vFrom.id), textAt(vTo.id)]);
    const before = new Map(sectionTexts(parseMarkdown(a)).map((s) => [s.key, s.text]));
    const after = new Map(sectionTexts(parseMarkdown(b)).map((s) => [s.key, s.text]));
    const changes: Array<{ path: string; before: string; after: string }> = [];
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const x = before.get(key) ?? "";
      const y = after.get(key) ?? "";
      if (x.trim() !== y.trim()) changes.push({ path: key || "(top)", before: x.trim(), after: y.trim() });
    }
    let summary = "No section of the spec doc changed.";
    if (changes.length > 0) {
      const { reviewer } = await this.roles(["reviewer"]);
      summary = (
        await this.step({
          stage: "diff",
          role: { client: reviewer.client, model: reviewer.model },
          system: SYSTEM.diff,
          prompt: diffPrompt(changes),
          schemaName: "diff_summary",
          schema: diffSummaryAnswer,
          expectedTokensOut: 300,
        })
      ).summary;
    }
    // Without a lint run of `to` the summary still answers, with no findings fixed or new.
    await runService
      .lintVersion(bundleId, docId, vTo.id, vTo.number)
      .catch((err: unknown) =>
        this.deps.logger.warn("lint before a diff summary failed", { doc: docId, error: String(err) }),
      );
    const latestOf = async (versionId: string) => {
      const [r] = await this.db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.docId, docId), eq(runs.versionId, versionId), eq(runs.status, "done")))
        .orderBy(desc(runs.createdAt))
        .limit(1);
      if (!r) return new Set<string>();
      const rows = await this.db.select({ id: findings.id }).from(findings).where(eq(findings.runId, r.id));
      return new Set(rows.map((x) => x.id));
    };
    const [fa, fb] = await Promise.all([latestOf(vFrom.id), latestOf(vTo.id)]);
    return {
      summary,
      sections_changed: changes.length,
      findings: { added: [...fb].filter((x) => !fa.has(x)), resolved: [...fa].filter((x) => !fb.has(x)) },
    };
  }
}
