/**
 * The build packet of a bundle at its current version (docs/handoff.md): its files, the
 * external targets it links to (as written; code with the commit the last review read),
 * the main doc of each linked bundle, its trace IDs with their defining line, the build
 * questions with the agreed answers, and the re-entry prompt an agent reads first.
 */
import { and, asc, desc, eq, isNotNull } from "drizzle-orm";
import { buildQuestions, linkChecks } from "../db/schema.js";
import type { Deps } from "../deps.js";
import type { DocRecord } from "../store/types.js";
import type { Verdict } from "../../core/verdict/verdict.js";
import { docLinks } from "../../core/trace/doc.js";
import { parseFrontmatter } from "../../core/markdown/frontmatter.js";
import type { BuildPacket, PacketFile } from "../../node/handoff-packet.js";
import { requirementsOf } from "../verify/requirements.js";

export interface ExternalTarget {
  target: string;
  kind: "issue" | "code" | "page";
  link: string;
  commit?: string;
}

export interface PacketQuestion {
  id: string;
  number: number;
  text: string;
  level: string;
  result: string;
  answer?: string;
}

export interface Packet extends BuildPacket {
  slug: string;
  title: string;
  doc_id: string;
  version_number: number;
  external_targets: ExternalTarget[];
  linked: Array<{ kind: string; slug: string; path: string }>;
  ids: Array<{ id: string; line: string; level: string; section: string[] }>;
  questions: PacketQuestion[];
  verdict?: Verdict;
  acknowledged: boolean;
  label: string;
}

/** What an external URL is: an issue, code (a repo, file, commit or pull request), or a page. */
export function targetKind(url: string): ExternalTarget["kind"] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "page";
  }
  const p = u.pathname;
  if (/\/(-\/)?issues\/\d+|\/browse\/[A-Z][A-Z0-9]*-\d+/.test(p)) return "issue";
  if (/\/(blob|tree|commit|commits|pull|-\/merge_requests)\//.test(p) || p.endsWith(".git")) return "code";
  const parts = p.split("/").filter(Boolean);
  if (/^(github\.com|gitlab\.com|bitbucket\.org)$/.test(u.host) && parts.length === 2) return "code";
  return "page";
}

function fileOf(path: string, bytes: Uint8Array): PacketFile {
  try {
    return { path, content: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "text" };
  } catch {
    return { path, content: Buffer.from(bytes).toString("base64"), encoding: "base64" };
  }
}

export async function buildPacket(
  d: Deps,
  rec: DocRecord,
  opts: {
    handoffId: string;
    verdict: Verdict | undefined;
    acknowledged: boolean;
    label: string;
    baseUrl: string;
  },
): Promise<Packet> {
  const snapshot = await d.store.snapshot(rec.head.id);
  const files: PacketFile[] = [...snapshot.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, bytes]) => fileOf(path, bytes));
  const mainText = Buffer.from(snapshot.get(rec.doc.path) ?? new Uint8Array()).toString("utf8");
  const links = docLinks(mainText).links;

  // External targets as written; a code target carries the commit the last review read.
  const external: ExternalTarget[] = [];
  for (const l of links.filter((x) => x.external)) {
    const kind = targetKind(l.target);
    const t: ExternalTarget = { target: l.target, kind, link: l.kind };
    if (kind === "code") {
      const [check] = await d.db
        .select({ commit: linkChecks.commit })
        .from(linkChecks)
        .where(
          and(
            eq(linkChecks.bundleId, rec.bundle.id),
            eq(linkChecks.targetUrl, l.target),
            isNotNull(linkChecks.commit),
          ),
        )
        .orderBy(desc(linkChecks.checkedAt))
        .limit(1);
      if (check?.commit) t.commit = check.commit;
    }
    external.push(t);
  }

  // The main doc of each linked bundle, at links/<slug>.md.
  const bySlug = new Map(
    (await d.store.listBundles({ limit: Number.MAX_SAFE_INTEGER })).map((r) => [r.bundle.slug, r]),
  );
  const linked: Packet["linked"] = [];
  const seen = new Set<string>();
  for (const l of links.filter((x) => !x.external)) {
    const other = bySlug.get(l.target);
    if (!other || other.bundle.id === rec.bundle.id || seen.has(l.target)) continue;
    seen.add(l.target);
    const { bytes } = await d.store.fileBytes(other.head.id, other.doc.path);
    const path = `links/${l.target}.md`;
    files.push(fileOf(path, bytes));
    linked.push({ kind: l.kind, slug: l.target, path });
  }

  const profile = d.profiles.get(rec.doc.profileKey);
  const ids = requirementsOf(mainText, rec.doc.path, profile).map((r) => ({
    id: r.id,
    line: r.text,
    level: r.level,
    section: r.section,
  }));

  // Build questions of the full review the verdict counts.
  const aiRun = opts.verdict?.kind === "full" ? opts.verdict.run_id : opts.verdict?.ai_run_id;
  const questions: PacketQuestion[] = aiRun
    ? (
        await d.db
          .select()
          .from(buildQuestions)
          .where(eq(buildQuestions.runId, aiRun))
          .orderBy(asc(buildQuestions.number))
      ).map((q) => ({
        id: q.id,
        number: q.number,
        text: q.text,
        level: q.level,
        result: q.result,
        ...(q.result === "agree" && q.agreedAnswer ? { answer: q.agreedAnswer } : {}),
      }))
    : [];

  const packet: Omit<Packet, "reentry_prompt"> = {
    handoff_id: opts.handoffId,
    slug: rec.bundle.slug,
    title: titleOf(mainText) ?? rec.bundle.title,
    doc_id: rec.doc.id,
    version_number: rec.head.number,
    main_path: rec.doc.path,
    files,
    external_targets: external,
    linked,
    ids,
    questions,
    ...(opts.verdict ? { verdict: opts.verdict } : {}),
    acknowledged: opts.acknowledged,
    label: opts.label,
  };
  return { ...packet, reentry_prompt: reentryPrompt(packet, opts.baseUrl) };
}

/** The doc's own title: its frontmatter `title`, else its first `# ` heading. */
function titleOf(text: string): string | undefined {
  const fm = parseFrontmatter(text);
  const t = fm.present && !fm.error ? fm.data.title : undefined;
  if (typeof t === "string" && t.trim()) return t.trim();
  return text.match(/^# +(.+?)\s*$/m)?.[1];
}

/** The markdown an agent reads first; it owns it after the handoff. */
export function reentryPrompt(p: Omit<Packet, "reentry_prompt">, baseUrl: string): string {
  const api = `${baseUrl.replace(/\/+$/, "")}/api/v1`;
  const v = p.verdict;
  const state = !v
    ? "no review verdict yet"
    : v.result === "build_ready"
      ? "Build Ready"
      : v.result === "stale"
        ? "stale (the spec changed after its last review)"
        : "Not Build Ready";
  const out: string[] = [
    `# Build: ${p.title}`,
    "",
    `You are building from the spec \`${p.slug}\` at version ${p.version_number}` +
      (p.label ? `, for ${p.label}` : "") +
      `. Its verdict when you took it: **${state}**` +
      (p.acknowledged && v?.result !== "build_ready" ? " (taken anyway, acknowledged)." : "."),
    "",
    "## Read first",
    "",
    `- \`${p.main_path}\`: the spec. Where it and this note disagree, the spec wins.`,
    ...p.files
      .filter((f) => f.path !== p.main_path && !f.path.startsWith("links/"))
      .map((f) => `- \`${f.path}\``),
    ...p.linked.map((l) => `- \`${l.path}\`: the linked bundle \`${l.slug}\` (${l.kind})`),
  ];
  if (p.external_targets.length) {
    out.push("", "## External targets (not fetched)", "");
    for (const t of p.external_targets)
      out.push(`- ${t.kind}: ${t.target}` + (t.commit ? ` (the review read commit ${t.commit})` : ""));
  }
  if (p.ids.length) {
    out.push(
      "",
      "## Trace IDs",
      "",
      "Cite each ID in a comment next to the code that implements it (`// REQ-001: ...`) and in the name of its test; verification looks for them there.",
      "",
    );
    for (const i of p.ids)
      out.push(`- **${i.id}** (${i.level}): ${i.line.replace(/^\W*[A-Z][A-Z0-9]*-\w+\W*\s*/, "")}`);
  }
  if (p.questions.length) {
    out.push("", "## Build questions", "");
    for (const q of p.questions)
      out.push(
        `${q.number}. ${q.text} (${q.level}): ` +
          (q.answer !== undefined
            ? `agreed answer: ${q.answer}`
            : `${q.result}: no agreed answer; ask before assuming`),
      );
  }
  out.push(
    "",
    "## When you are done, or stuck",
    "",
    `- Report back: \`POST ${api}/handoffs/${p.handoff_id}/report\` with \`{"result": "built" | "partial" | "blocked", "body": "what you learned about the spec"}\`. \`blocked\` opens a blocking thread the author sees.`,
    `- Ask for verification: \`POST ${api}/docs/${p.doc_id}/verifications\` with \`{"target": "<repo URL or folder>", "handoff_id": "${p.handoff_id}"}\`.`,
    "",
  );
  return out.join("\n");
}
