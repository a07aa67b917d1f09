/**
 * What a review reads: the text files of one version of a bundle, and the main doc of each
 * bundle its spec doc links to (a relative link that lands on another bundle's spec doc,
 * read at that bundle's current version).
 */
import { posix } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import { decodeText } from "../../core/lint/engine.js";
import { parseMarkdown } from "../../core/markdown/document.js";
import type { LinkedBundle, ReviewBundle, ReviewFile } from "../../core/review/corpus.js";
import type { Db } from "../db/index.js";
import { bundles, docs } from "../db/schema.js";
import type { BundleStore } from "../store/types.js";

const TEXT = /\.(md|markdown|txt|ya?ml|json|csv|tsv|feature|proto|graphql|sql)$/i;
const MAX_TEXT_BYTES = 1024 * 1024;

export function textFiles(files: ReadonlyMap<string, Uint8Array | string>): ReviewFile[] {
  const out: ReviewFile[] = [];
  for (const [path, content] of files) {
    if (!TEXT.test(path)) continue;
    if (typeof content !== "string" && content.byteLength > MAX_TEXT_BYTES) continue;
    out.push({ path, text: decodeText(content).text });
  }
  return out;
}

/** Relative links of the main doc that land outside its bundle folder, as served-folder paths. */
function outsideTargets(slug: string, mainPath: string, text: string): string[] {
  const base = posix.join(slug === "." ? "" : slug, posix.dirname(mainPath));
  const out = new Set<string>();
  for (const l of parseMarkdown(text).links) {
    if (l.kind !== "link" || /^[a-z][a-z0-9+.-]*:|^#|^\//i.test(l.href)) continue;
    const target = posix.normalize(posix.join(base, decodeURI(l.href.split("#")[0]!)));
    if (target.startsWith("..")) continue;
    out.add(target);
  }
  return [...out];
}

export async function loadReviewBundle(
  db: Db,
  store: BundleStore,
  opts: { bundleId: string; slug: string; mainPath: string; files: ReadonlyMap<string, Uint8Array> },
): Promise<ReviewBundle> {
  const files = textFiles(opts.files);
  const main = files.find((f) => f.path === opts.mainPath);
  const linked: LinkedBundle[] = [];
  if (main) {
    const targets = outsideTargets(opts.slug, opts.mainPath, main.text);
    if (targets.length > 0) {
      const rows = await db
        .select({ id: bundles.id, slug: bundles.slug, head: bundles.headVersionId, path: docs.path })
        .from(bundles)
        .innerJoin(docs, eq(docs.bundleId, bundles.id))
        .where(and(isNull(bundles.goneAt), isNull(bundles.archivedAt)));
      for (const r of rows) {
        if (r.id === opts.bundleId || !r.head) continue;
        const full = r.slug === "." ? r.path : `${r.slug}/${r.path}`;
        if (!targets.includes(full)) continue;
        const { bytes } = await store.fileBytes(r.head, r.path);
        linked.push({ name: r.slug, file: { path: r.path, text: decodeText(bytes).text } });
      }
    }
  }
  linked.sort((a, b) => a.name.localeCompare(b.name));
  return { files, mainPath: opts.mainPath, linked };
}
