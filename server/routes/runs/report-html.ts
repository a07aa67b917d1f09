/** The self-contained HTML report of an ad-hoc review (GET /reviews/{reviewId}/report): no script, no outside file. */
import type { AdhocResult } from "../../review/service.js";

function esc(s: unknown): string {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

export function reviewReportHtml(r: AdhocResult): string {
  const v = r.verdict;
  const ready = v.result === "build_ready";
  const findings = r.findings
    .map(
      (f) =>
        `<tr><td class="lvl ${esc(f.level)}">${esc(f.level)}</td><td>${esc(f.category)}</td><td>${esc(f.message)}` +
        (f.anchor
          ? `<div class="where">${esc(f.anchor.file)} › ${esc(f.anchor.heading_path.join(" › ") || "(top)")}: <q>${esc(f.anchor.quote)}</q></div>`
          : "") +
        `</td>` +
        `<td>${esc(f.stage)}</td></tr>`,
    )
    .join("\n");
  const questions = (r.questions ?? [])
    .map(
      (q) =>
        `<tr><td>${q.number}</td><td>${esc(q.level)}</td><td>${esc(q.text)}</td><td class="res ${esc(q.result)}">${esc(q.result)}</td>` +
        `<td>${q.answers.map((a) => `<div>Reader ${a.reader}${a.answered ? "" : " (not answered)"}: ${esc(a.answer)}</div>`).join("")}</td></tr>`,
    )
    .join("\n");
  const claims = (r.claims ?? [])
    .map((c) => `<tr><td>${esc(c.label)}</td><td>${esc(c.text)}</td><td>${esc(c.explanation)}</td></tr>`)
    .join("\n");
  const radar = Object.entries(v.radar)
    .map(([k, n]) => `<li>${esc(k)}: ${n}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review of ${esc(r.main_path)}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border:1px solid #ddd;padding:.35rem .5rem;vertical-align:top;text-align:left}
.verdict{padding:.6rem 1rem;border-radius:6px;font-weight:600}.ready{background:#e3f6e5}.not{background:#fde8e8}
.lvl.MUST{color:#b00020;font-weight:600}.lvl.SHOULD{color:#a15c00}.where{color:#666;font-size:13px}
.res.diverge,.res.unanswered{color:#b00020}.res.partial{color:#a15c00}
</style></head><body>
<h1>Review of ${esc(r.main_path)}</h1>
<p class="verdict ${ready ? "ready" : "not"}">${ready ? "Build Ready" : "Not Build Ready"} · score ${v.score} · ${v.must} MUST, ${v.should} SHOULD, ${v.info} INFO · ${esc(v.kind)} review · profile ${esc(r.profile_key)}</p>
<ul>${radar}</ul>
<h2>Findings (${r.findings.length})</h2>
<table><thead><tr><th>Level</th><th>Category</th><th>Finding</th><th>Stage</th></tr></thead><tbody>
${findings}
</tbody></table>
${r.questions ? `<h2>Build questions (${r.questions.length})</h2><table><thead><tr><th>#</th><th>Level</th><th>Question</th><th>Result</th><th>Answers</th></tr></thead><tbody>\n${questions}\n</tbody></table>` : ""}
${r.claims ? `<h2>Claims (${r.claims.length})</h2><table><thead><tr><th>Label</th><th>Claim</th><th>Why</th></tr></thead><tbody>\n${claims}\n</tbody></table>` : ""}
<p class="where">Review ${esc(r.id)}, made ${esc(r.created_at)}; kept until ${esc(r.expires_at)}.</p>
</body></html>
`;
}
