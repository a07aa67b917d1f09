/**
 * The HTML report of a spec doc (GET /docs/{docId}/export?format=html): one
 * self-contained page with the verdict, the findings grouped by level, the assumptions
 * and the rendered doc with each finding's place marked. Pure: it takes data and
 * returns HTML. No script, no external request: the CSS is inline, images of the bundle
 * are data: URLs, and a Content-Security-Policy forbids loading anything else.
 */
import { renderMarkdown } from "../render/html.js";
import type { Verdict } from "../verdict/verdict.js";

export type ReportLevel = "MUST" | "SHOULD" | "INFO";

export interface ReportFinding {
  id: string;
  check: string;
  level: ReportLevel;
  category: string;
  message: string;
  relaxed?: boolean;
  anchor?: { file: string; heading_path: string[]; quote: string; start: number; end: number };
}

/** What the report shows of a verdict (the one Verdict type, core/verdict). */
export type ReportVerdict = Pick<
  Verdict,
  | "result"
  | "kind"
  | "score"
  | "radar"
  | "must"
  | "should"
  | "info"
  | "waiver_count"
  | "relaxed_count"
  | "version_number"
> &
  Partial<Pick<Verdict, "blocking_threads">>;

export interface ReportInput {
  title: string;
  slug: string;
  profile: { key: string; title?: string; radar?: Array<{ key: string; title: string }> };
  /** Path of the main doc in the bundle. */
  path: string;
  version: { number: number; created_at: string; created_by: string; message: string };
  /** Absent when no lint has finished on the doc. */
  verdict?: ReportVerdict;
  findings: ReportFinding[];
  assumptions: Array<{ text: string; heading_path: string[] }>;
  /** The main doc's text. */
  markdown: string;
  /** Images of the bundle by path, inlined as data: URLs where the doc shows them. */
  images?: ReadonlyMap<string, { mediaType: string; bytes: Uint8Array }>;
  /** When the report was made (ISO date-time). */
  generatedAt: string;
  /** What adoption did (core/lint adoptionNote), shown under the verdict; absent when the doc names its type and size. */
  adoptionNote?: string;
}

const LEVELS: ReportLevel[] = ["MUST", "SHOULD", "INFO"];
const LEVEL_TITLE: Record<ReportLevel, string> = {
  MUST: "Must fix",
  SHOULD: "Should fix",
  INFO: "For information",
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function resultLabel(v: ReportVerdict | undefined): { text: string; cls: string; sentence: string } {
  if (!v)
    return { text: "Not reviewed", cls: "none", sentence: "No lint run has finished on this version yet." };
  if (v.result === "build_ready")
    return {
      text: "Build Ready",
      cls: "ready",
      sentence: "No open MUST findings and no open blocking threads.",
    };
  if (v.result === "stale")
    return {
      text: "Stale",
      cls: "stale",
      sentence: `The verdict is of version ${v.version_number}; the doc changed since.`,
    };
  const parts = [`${v.must} open MUST finding${v.must === 1 ? "" : "s"}`];
  if (v.blocking_threads)
    parts.push(`${v.blocking_threads} open blocking thread${v.blocking_threads === 1 ? "" : "s"}`);
  return { text: "Not Build Ready", cls: "blocked", sentence: `${parts.join(" and ")} stand in the way.` };
}

/** The score as a ring: the arc is the share of 100. */
function scoreRing(score: number, cls: string): string {
  const r = 34;
  const c = 2 * Math.PI * r;
  const filled = (Math.max(0, Math.min(100, score)) / 100) * c;
  return `<svg class="ring ${cls}" viewBox="0 0 84 84" width="84" height="84" role="img" aria-label="Score ${score} of 100">
<circle cx="42" cy="42" r="${r}" class="track"/>
<circle cx="42" cy="42" r="${r}" class="arc" stroke-dasharray="${filled.toFixed(2)} ${c.toFixed(2)}" transform="rotate(-90 42 42)"/>
<text x="42" y="47" text-anchor="middle" class="ring-text">${score}</text></svg>`;
}

/** The radar as a small polygon chart (three keys or more), with a bar list beside it. */
function radarChart(radar: Record<string, number>, titles: Map<string, string>): string {
  const keys = Object.keys(radar);
  if (keys.length === 0) return "";
  const bars = keys
    .map((k) => {
      const v = Math.max(0, Math.min(100, radar[k]!));
      const tone = v >= 80 ? "good" : v >= 50 ? "fair" : "poor";
      return `<li><span class="bar-label">${escapeHtml(titles.get(k) ?? k)}</span><span class="bar"><span class="bar-fill ${tone}" style="width:${v}%"></span></span><span class="bar-value">${v}</span></li>`;
    })
    .join("");
  let svg = "";
  if (keys.length >= 3) {
    const size = 180;
    const cx = size / 2;
    const cy = size / 2;
    const R = 62;
    const point = (i: number, frac: number) => {
      const a = (Math.PI * 2 * i) / keys.length - Math.PI / 2;
      return [cx + Math.cos(a) * R * frac, cy + Math.sin(a) * R * frac] as const;
    };
    const ring = (frac: number) =>
      keys
        .map((_, i) =>
          point(i, frac)
            .map((n) => n.toFixed(1))
            .join(","),
        )
        .join(" ");
    const grid = [0.25, 0.5, 0.75, 1].map((f) => `<polygon points="${ring(f)}" class="grid"/>`).join("");
    const spokes = keys
      .map((_, i) => {
        const [x, y] = point(i, 1);
        return `<line x1="${cx}" y1="${cy}" x2="${x.toFixed(1)}" y2="${y.toFixed(1)}" class="grid"/>`;
      })
      .join("");
    const shape = keys
      .map((k, i) =>
        point(i, Math.max(0.02, Math.min(100, radar[k]!) / 100))
          .map((n) => n.toFixed(1))
          .join(","),
      )
      .join(" ");
    const labels = keys
      .map((k, i) => {
        const [x, y] = point(i, 1.22);
        const anchor = Math.abs(x - cx) < 4 ? "middle" : x > cx ? "start" : "end";
        const label = titles.get(k) ?? k;
        return `<text x="${x.toFixed(1)}" y="${(y + 3).toFixed(1)}" text-anchor="${anchor}" class="radar-label">${escapeHtml(label.length > 14 ? label.slice(0, 13) + "…" : label)}</text>`;
      })
      .join("");
    svg = `<svg class="radar" viewBox="-70 -6 ${size + 140} ${size + 12}" width="${size + 140}" height="${size + 12}" role="img" aria-label="Radar">${grid}${spokes}<polygon points="${shape}" class="shape"/>${labels}</svg>`;
  }
  return `<div class="radar-box">${svg}<ul class="bars">${bars}</ul></div>`;
}

interface Block {
  /** Index in the HTML of the opening tag, and where the tag ends. */
  at: number;
  tagEnd: number;
  start: number;
  end: number;
}

/** Inline the bundle's images as data: URLs; an image that is not in the bundle shows its alt text. */
function inlineImages(
  html: string,
  docPath: string,
  images: ReadonlyMap<string, { mediaType: string; bytes: Uint8Array }>,
): string {
  const folder = docPath.includes("/") ? docPath.slice(0, docPath.lastIndexOf("/")) : "";
  return html.replace(/<img\b([^>]*?)\s*\/?>/g, (_tag, attrs: string) => {
    const src = /\ssrc="([^"]*)"/.exec(attrs)?.[1] ?? "";
    const alt = /\salt="([^"]*)"/.exec(attrs)?.[1] ?? "";
    let ref = src.replace(/&amp;/g, "&").replace(/[?#].*$/, "");
    try {
      ref = decodeURI(ref);
    } catch {
      /* as written */
    }
    const parts = ref.startsWith("/") ? [] : folder ? folder.split("/") : [];
    let ok = !/^[a-z][a-z0-9+.-]*:/i.test(ref) && !ref.startsWith("//");
    for (const seg of ref.split("/")) {
      if (seg === "" || seg === ".") continue;
      if (seg === "..") ok = ok && parts.pop() !== undefined;
      else parts.push(seg);
    }
    const img = ok ? images.get(parts.join("/")) : undefined;
    if (!img || !img.mediaType.startsWith("image/"))
      return `<span class="img-missing" title="${escapeHtml(src)}">[image: ${alt || escapeHtml(src)}]</span>`;
    const data = `data:${img.mediaType.split(";")[0]};base64,${Buffer.from(img.bytes).toString("base64")}`;
    return `<img src="${data}" alt="${alt}" loading="eager">`;
  });
}

/** Mark the innermost block holding each finding, and highlight its quote when the text shows it verbatim. */
function markFindings(
  html: string,
  findings: ReportFinding[],
  docPath: string,
): { html: string; targets: Map<string, string> } {
  const blocks: Block[] = [];
  const re = /<[a-z][a-z0-9]*\b[^>]*?\sdata-source-start="(\d+)"\s+data-source-end="(\d+)"[^>]*>/g;
  for (let m = re.exec(html); m; m = re.exec(html))
    blocks.push({ at: m.index, tagEnd: m.index + m[0].length, start: Number(m[1]), end: Number(m[2]) });
  // Blocks sorted by where their source starts (page order among equal starts); each
  // block's parent is the nearest earlier one whose range holds it. The innermost block
  // holding a position is then the last block starting at or before it, or one of that
  // block's ancestors: a binary search and a short walk up, so marking stays linear in
  // the size of the page (footnotes shown at the end may come from anywhere).
  const sorted = blocks.map((_, i) => i);
  sorted.sort((x, y) => blocks[x]!.start - blocks[y]!.start || x - y);
  const parent = new Int32Array(sorted.length).fill(-1);
  const open: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    const b = blocks[sorted[k]!]!;
    while (open.length > 0) {
      const top = blocks[sorted[open[open.length - 1]!]!]!;
      if (b.end <= top.end) break;
      open.pop();
    }
    if (open.length > 0) parent[k] = open[open.length - 1]!;
    open.push(k);
  }
  const holds = (b: Block, at: number) =>
    b.start <= at && (at < b.end || (at === b.end && b.start === b.end));
  const innermost = (at: number): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (blocks[sorted[mid]!]!.start <= at) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo - 1; k >= 0; k = parent[k]!) if (holds(blocks[sorted[k]!]!, at)) return sorted[k]!;
    return -1;
  };
  const byBlock = new Map<number, ReportFinding[]>();
  const targets = new Map<string, string>();
  for (const f of findings) {
    if (!f.anchor || f.anchor.file !== docPath) continue;
    const best = innermost(f.anchor.start);
    if (best < 0) continue;
    let list = byBlock.get(best);
    if (!list) byBlock.set(best, (list = []));
    list.push(f);
    targets.set(f.id, `src-${blocks[best]!.start}-${best}`);
  }
  // Edits are applied in one forward pass: sorted by position, insertions before a
  // replaced tag at the same place, otherwise in the order they were made.
  const edits: Array<{ at: number; remove: number; insert: string }> = [];
  for (const [i, list] of byBlock) {
    const b = blocks[i]!;
    const worst = LEVELS.find((l) => list.some((f) => f.level === l))!;
    const tag = html.slice(b.at, b.tagEnd);
    const id = `src-${b.start}-${i}`;
    const title = list.map((f) => `${f.level} ${f.check}: ${f.message}`).join("\n");
    const newTag = tag.replace(
      /^<([a-z][a-z0-9]*)/,
      `<$1 id="${id}" data-finding-level="${worst}" title="${escapeHtml(title)}"`,
    );
    edits.push({ at: b.at, remove: tag.length, insert: newTag });
    // The quote, when it sits in the block's own text before the next block starts.
    const nextBlock = blocks[i + 1]?.at ?? html.length;
    const region = html.slice(b.tagEnd, nextBlock);
    const done = new Set<string>();
    for (const f of list) {
      const quote = f.anchor!.quote.trim();
      if (quote.length < 2 || quote.length > 300 || quote.includes("\n") || done.has(quote)) continue;
      done.add(quote);
      for (const variant of [escapeHtml(quote), quote.replace(/&/g, "&amp;").replace(/</g, "&lt;")]) {
        const k = region.indexOf(variant);
        if (k < 0) continue;
        const before = region.slice(0, k);
        if (before.lastIndexOf("<") > before.lastIndexOf(">")) continue; // inside a tag
        const at = b.tagEnd + k;
        edits.push({ at, remove: 0, insert: `<mark class="q ${f.level.toLowerCase()}">` });
        edits.push({ at: at + variant.length, remove: 0, insert: "</mark>" });
        break;
      }
    }
  }
  const order = edits.map((e, i) => ({ e, i }));
  order.sort((x, y) => x.e.at - y.e.at || x.e.remove - y.e.remove || x.i - y.i);
  const parts: string[] = [];
  let from = 0;
  for (const { e } of order) {
    if (e.at < from) continue; // would cut into text already replaced
    parts.push(html.slice(from, e.at), e.insert);
    from = e.at + e.remove;
  }
  parts.push(html.slice(from));
  return { html: parts.join(""), targets };
}

function findingItem(f: ReportFinding, target: string | undefined): string {
  const path = f.anchor?.heading_path.length
    ? f.anchor.heading_path.map(escapeHtml).join(' <span class="sep">›</span> ')
    : "";
  const quote = f.anchor?.quote.trim();
  return `<li class="finding ${f.level.toLowerCase()}" id="finding-${escapeHtml(f.id)}">
<div class="finding-head"><span class="chip ${f.level.toLowerCase()}">${f.level}</span><code class="check">${escapeHtml(f.check)}</code>${f.relaxed ? '<span class="relaxed" title="lowered one level: the doc is in adoption mode">relaxed</span>' : ""}<span class="category">${escapeHtml(f.category)}</span></div>
<p class="message">${escapeHtml(f.message)}</p>
${path || quote ? `<div class="where">${path ? `<span class="heading-path">${path}</span>` : ""}${target ? ` <a class="jump" href="#${target}">show in doc ↓</a>` : ""}</div>` : ""}
${quote ? `<blockquote class="quote">${escapeHtml(quote.length > 400 ? quote.slice(0, 400) + "…" : quote)}</blockquote>` : ""}
</li>`;
}

export function renderReport(input: ReportInput): string {
  const v = input.verdict;
  const label = resultLabel(v);
  const rendered = renderMarkdown(input.markdown);
  const marked = markFindings(rendered, input.findings, input.path);
  const body = inlineImages(marked.html, input.path, input.images ?? new Map());
  const titles = new Map((input.profile.radar ?? []).map((r) => [r.key, r.title]));
  const groups = LEVELS.map((level) => ({ level, items: input.findings.filter((f) => f.level === level) }));
  const counts = v
    ? { MUST: v.must, SHOULD: v.should, INFO: v.info }
    : { MUST: groups[0]!.items.length, SHOULD: groups[1]!.items.length, INFO: groups[2]!.items.length };
  const total = input.findings.length;
  const date = input.version.created_at.slice(0, 16).replace("T", " ");

  const findingsHtml =
    total === 0
      ? v?.result === "stale"
        ? `<p class="empty">The latest run read version ${v.version_number}; its findings are not shown because the text changed since.</p>`
        : `<p class="empty">No findings.${v ? " Every check of the profile passed." : ""}</p>`
      : groups
          .filter((g) => g.items.length > 0)
          .map(
            (g) => `<section class="level-group">
<h3><span class="chip ${g.level.toLowerCase()}">${g.level}</span> ${LEVEL_TITLE[g.level]} <span class="count">${g.items.length}</span></h3>
<ol class="findings">${g.items.map((f) => findingItem(f, marked.targets.get(f.id))).join("\n")}</ol>
</section>`,
          )
          .join("\n");

  const assumptionsHtml =
    input.assumptions.length === 0
      ? `<p class="empty">The doc states no assumptions (sentences opening with <code>Assumption:</code>).</p>`
      : `<ol class="assumptions">${input.assumptions
          .map(
            (a) =>
              `<li><p>${escapeHtml(a.text)}</p>${a.heading_path.length ? `<span class="heading-path">${a.heading_path.map(escapeHtml).join(' <span class="sep">›</span> ')}</span>` : ""}</li>`,
          )
          .join("")}</ol>`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="spec-review">
<title>${escapeHtml(input.title)} · v${input.version.number} · ${escapeHtml(label.text)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="top">
<div class="eyebrow">Spec review report</div>
<h1>${escapeHtml(input.title)}</h1>
<div class="meta"><span><code>${escapeHtml(input.slug)}</code></span><span>${escapeHtml(input.profile.title ?? input.profile.key)} <code>${escapeHtml(input.profile.key)}</code></span><span>${escapeHtml(input.path)}</span><span>version ${input.version.number} · ${escapeHtml(date)} UTC · ${escapeHtml(input.version.created_by)}</span></div>
</header>
<main>
<section class="verdict ${label.cls}" aria-label="Verdict">
<div class="verdict-main">
${v ? scoreRing(v.score, label.cls) : ""}
<div>
<div class="badge ${label.cls}" data-result="${v?.result ?? "none"}">${label.text}</div>
<p class="sentence">${escapeHtml(label.sentence)}</p>
<div class="counts">${LEVELS.map((l) => `<span class="count-pill ${l.toLowerCase()}"><b>${counts[l]}</b> ${l}</span>`).join("")}${v && v.waiver_count > 0 ? `<span class="count-pill waived"><b>${v.waiver_count}</b> waived</span>` : ""}${v && v.relaxed_count > 0 ? `<span class="count-pill relaxed"><b>${v.relaxed_count}</b> relaxed</span>` : ""}</div>
${input.adoptionNote ? `<p class="adoption">${escapeHtml(input.adoptionNote)}</p>` : ""}
<p class="fine">${v ? `Score ${v.score} of 100 · ${escapeHtml(v.kind)} review of version ${v.version_number}` : "No verdict yet"} · <span class="findings-total">${total} finding${total === 1 ? "" : "s"}</span></p>
</div>
</div>
${v ? radarChart(v.radar, titles) : ""}
</section>
<div class="columns">
<div class="side">
<section class="panel" aria-label="Findings"><h2>Findings</h2>${findingsHtml}</section>
<section class="panel" aria-label="Assumptions"><h2>Assumptions <span class="count">${input.assumptions.length}</span></h2>${assumptionsHtml}</section>
</div>
<article class="doc panel" aria-label="Document"><h2 class="doc-label">Document <span class="fine">${escapeHtml(input.path)} · version ${input.version.number}</span></h2>
<div class="markdown">${body}</div></article>
</div>
</main>
<footer>Made by spec-review on ${escapeHtml(input.generatedAt.slice(0, 16).replace("T", " "))} UTC. Findings of the lint stage; the verdict counts open MUST findings and blocking threads.</footer>
</body>
</html>
`;
}

const CSS = `
:root{--ink:#1d2330;--muted:#5d6679;--line:#e3e6ec;--bg:#f6f7f9;--card:#fff;--must:#c62f3a;--must-bg:#fdecee;--should:#b86a00;--should-bg:#fff4e0;--info:#2f6fcf;--info-bg:#e9f1fd;--ready:#1e8a4c;--ready-bg:#e6f5ec;--stale:#8a6d00;--stale-bg:#fbf4d9}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.55 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
header.top{background:#1d2330;color:#fff;padding:28px 40px 24px}
.eyebrow{text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:#aab3c5}
header.top h1{margin:4px 0 10px;font-size:28px;line-height:1.2}
.meta{display:flex;flex-wrap:wrap;gap:6px 18px;color:#c9d0dd;font-size:13px}
.meta code{color:#fff;background:rgba(255,255,255,.12);padding:1px 6px;border-radius:4px}
main{max-width:1280px;margin:0 auto;padding:24px 40px 40px}
.verdict{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:24px;background:var(--card);border:1px solid var(--line);border-left:6px solid var(--muted);border-radius:10px;padding:20px 24px;margin-bottom:24px}
.verdict.ready{border-left-color:var(--ready)}.verdict.blocked{border-left-color:var(--must)}.verdict.stale{border-left-color:var(--stale)}
.verdict-main{display:flex;gap:20px;align-items:center}
.badge{display:inline-block;font-weight:700;font-size:20px;padding:4px 14px;border-radius:999px;background:#eceef2;color:var(--muted)}
.badge.ready{background:var(--ready-bg);color:var(--ready)}.badge.blocked{background:var(--must-bg);color:var(--must)}.badge.stale{background:var(--stale-bg);color:var(--stale)}
.sentence{margin:8px 0 10px;color:var(--muted)}
.counts{display:flex;flex-wrap:wrap;gap:8px}
.count-pill{font-size:13px;padding:2px 10px;border-radius:999px;border:1px solid var(--line);background:#fafbfc}
.count-pill.must{color:var(--must);border-color:#f3c3c8;background:var(--must-bg)}.count-pill.should{color:var(--should);border-color:#f1d7a6;background:var(--should-bg)}.count-pill.info{color:var(--info);border-color:#c3d6f5;background:var(--info-bg)}
.fine{color:var(--muted);font-size:12.5px;margin:10px 0 0;font-weight:400}
.ring .track{fill:none;stroke:#eceef2;stroke-width:8}.ring .arc{fill:none;stroke:var(--muted);stroke-width:8;stroke-linecap:round}
.ring.ready .arc{stroke:var(--ready)}.ring.blocked .arc{stroke:var(--must)}.ring.stale .arc{stroke:var(--stale)}
.ring-text{font-size:22px;font-weight:700;fill:var(--ink)}
.radar-box{display:flex;align-items:center;gap:16px}
.radar .grid{fill:none;stroke:#dfe3ea;stroke-width:1}.radar .shape{fill:rgba(47,111,207,.18);stroke:var(--info);stroke-width:2}
.radar-label{font-size:10px;fill:var(--muted)}
.bars{list-style:none;margin:0;padding:0;min-width:230px}
.bars li{display:grid;grid-template-columns:92px 1fr 30px;align-items:center;gap:8px;font-size:12.5px;margin:3px 0}
.bar-label{color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.bar{height:8px;background:#eceef2;border-radius:4px;overflow:hidden}.bar-fill{display:block;height:100%;border-radius:4px}
.bar-fill.good{background:var(--ready)}.bar-fill.fair{background:#d99a1e}.bar-fill.poor{background:var(--must)}
.bar-value{text-align:right;font-variant-numeric:tabular-nums}
.columns{display:grid;grid-template-columns:minmax(0,5fr) minmax(0,6fr);gap:24px;align-items:start}
@media (max-width:980px){.columns{grid-template-columns:1fr}main,header.top{padding-left:18px;padding-right:18px}}
.panel{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin-bottom:24px}
.panel h2{font-size:17px;margin:0 0 12px}
.level-group h3{display:flex;align-items:center;gap:8px;font-size:14px;margin:16px 0 8px}
.count{display:inline-block;min-width:22px;text-align:center;font-size:12px;background:#eceef2;color:var(--muted);border-radius:999px;padding:0 7px;font-weight:600}
.chip{display:inline-block;font-size:11px;font-weight:700;letter-spacing:.03em;padding:1px 7px;border-radius:4px;color:#fff}
.chip.must{background:var(--must)}.chip.should{background:var(--should)}.chip.info{background:var(--info)}
ol.findings{list-style:none;margin:0;padding:0}
.finding{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:8px;padding:10px 12px;margin:0 0 10px;background:#fff}
.finding.must{border-left-color:var(--must)}.finding.should{border-left-color:var(--should)}.finding.info{border-left-color:var(--info)}
.finding-head{display:flex;flex-wrap:wrap;align-items:center;gap:8px}
.check{color:var(--ink);background:#f1f3f6;padding:1px 6px;border-radius:4px}
.category{margin-left:auto;color:var(--muted);font-size:12px}
.adoption{margin:10px 0 0;font-size:13px;color:var(--muted);border-left:3px dashed #c2c8d3;padding-left:8px;max-width:60ch}
.relaxed{font-size:11px;color:var(--muted);border:1px dashed #c2c8d3;border-radius:4px;padding:0 5px}
.message{margin:6px 0 4px}
.where{font-size:12.5px;color:var(--muted)}
.heading-path{font-size:12.5px;color:var(--muted)}.sep{color:#b3b9c6}
.jump{color:var(--info);text-decoration:none;white-space:nowrap}.jump:hover{text-decoration:underline}
.quote{margin:6px 0 0;padding:4px 10px;border-left:3px solid #d6dae2;background:#fafbfc;color:#3a4252;font-size:13px;white-space:pre-wrap;word-break:break-word}
ol.assumptions{margin:0;padding-left:20px}ol.assumptions li{margin:0 0 8px}ol.assumptions p{margin:0}
.empty{color:var(--muted);margin:0}
.doc-label{display:flex;justify-content:space-between;align-items:baseline;gap:8px;border-bottom:1px solid var(--line);padding-bottom:10px}
.markdown{overflow-wrap:break-word}
.markdown h1{font-size:24px;margin:12px 0 8px}.markdown h2{font-size:19px;margin:22px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}.markdown h3{font-size:16px;margin:18px 0 6px}
.markdown img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px}
.markdown table{border-collapse:collapse;margin:10px 0;display:block;overflow-x:auto}.markdown th,.markdown td{border:1px solid var(--line);padding:5px 9px;text-align:left}.markdown th{background:#f6f7f9}
.markdown pre{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:10px 12px;overflow-x:auto}
.markdown blockquote{margin:10px 0;padding:2px 14px;border-left:3px solid #d6dae2;color:#4a5263}
.markdown [data-finding-level]{position:relative;border-radius:4px;border-left:3px solid var(--c,transparent);padding-left:8px;scroll-margin-top:16px}
.markdown li[data-finding-level]{margin-left:-11px}
@media screen and (min-width:981px){.doc{position:sticky;top:16px;max-height:calc(100vh - 32px);overflow:auto}}
.markdown [data-finding-level="MUST"]{--c:var(--must);background:linear-gradient(90deg,var(--must-bg),transparent 70%)}
.markdown [data-finding-level="SHOULD"]{--c:var(--should);background:linear-gradient(90deg,var(--should-bg),transparent 70%)}
.markdown [data-finding-level="INFO"]{--c:var(--info);background:linear-gradient(90deg,var(--info-bg),transparent 70%)}
.markdown :target{outline:2px solid var(--info);outline-offset:2px}
mark.q{padding:0 2px;border-radius:3px}mark.q.must{background:#f8c9ce}mark.q.should{background:#fde2b0}mark.q.info{background:#cfe0fa}
.img-missing{display:inline-block;color:var(--muted);border:1px dashed #c2c8d3;border-radius:4px;padding:2px 6px;font-size:12.5px}
footer{max-width:1280px;margin:0 auto;padding:0 40px 32px;color:var(--muted);font-size:12px}
@media print{body{background:#fff}header.top{background:#fff;color:var(--ink);border-bottom:2px solid var(--ink)}.meta{color:var(--muted)}.columns{display:block}.panel,.verdict{break-inside:avoid-page}}
`;
