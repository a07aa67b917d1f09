/**
 * Markdown to HTML with remark (GFM), for people reading a doc. Every block element
 * carries where it came from, so a click in the page maps back to the source:
 * `data-source-start` / `data-source-end` (UTF-8 byte offsets into the whole text,
 * frontmatter included) and `data-source-line` / `data-source-end-line` (1-based).
 * Raw HTML in the markdown is dropped, and a link or image whose address could run script
 * (`javascript:`, `vbscript:`, a `data:` URL other than an image) loses it, so the output is
 * safe to show.
 */
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkRehype from "remark-rehype";
import rehypeStringify from "rehype-stringify";
import type { Root, Element, Nodes } from "hast";
import { splitFrontmatter } from "../markdown/frontmatter.js";

const BLOCKS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "table",
  "thead",
  "tbody",
  "tr",
  "hr",
  "section",
]);

/** UTF-8 byte offset of every UTF-16 index, computed lazily in one pass. */
function byteOffsets(text: string): (index: number) => number {
  let table: Uint32Array | undefined;
  return (index) => {
    if (!table) {
      table = new Uint32Array(text.length + 1);
      let bytes = 0;
      for (let i = 0; i < text.length; i++) {
        table[i] = bytes;
        const c = text.charCodeAt(i);
        if (c < 0x80) bytes += 1;
        else if (c < 0x800) bytes += 2;
        else if (c >= 0xd800 && c <= 0xdbff) {
          table[i + 1] = bytes + 4; // the low surrogate ends the same 4-byte character
          bytes += 4;
          i++;
        } else bytes += 3;
      }
      table[text.length] = bytes;
    }
    return table[Math.min(index, text.length)]!;
  };
}

const SAFE_SCHEMES = new Set(["http", "https", "mailto", "tel", "ftp", "ftps", "xmpp", "irc", "ircs"]);
const DATA_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp|avif|bmp);/i;

/**
 * Whether a link (`href`) or image (`src`) address is safe to keep: a relative address, a
 * fragment, or one of the plain web schemes; for an image also a raster `data:image/...`.
 * Browsers ignore control characters and spaces inside a scheme (`java\tscript:`), so those
 * are removed before the scheme is read.
 */
export function safeUrl(url: string, kind: "href" | "src"): boolean {
  // eslint-disable-next-line no-control-regex
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/g, "");
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact)?.[1]?.toLowerCase();
  if (scheme === undefined) return true;
  if (SAFE_SCHEMES.has(scheme)) return true;
  return kind === "src" && scheme === "data" && DATA_IMAGE.test(compact);
}

function withPositions(text: string, bodyStart: number, bodyLine: number) {
  const toByte = byteOffsets(text);
  return () => (tree: Root) => {
    const visit = (node: Nodes) => {
      if (node.type === "element") mark(node);
      if ("children" in node) for (const child of node.children) visit(child);
    };
    const mark = (el: Element) => {
      for (const [prop, kind] of [
        ["href", "href"],
        ["src", "src"],
      ] as const) {
        const value = el.properties[prop];
        if (typeof value === "string" && !safeUrl(value, kind)) delete el.properties[prop];
      }
      const pos = el.position;
      if (!BLOCKS.has(el.tagName) || pos?.start.offset === undefined || pos.end.offset === undefined) return;
      el.properties["dataSourceStart"] = toByte(bodyStart + pos.start.offset);
      el.properties["dataSourceEnd"] = toByte(bodyStart + pos.end.offset);
      el.properties["dataSourceLine"] = pos.start.line + bodyLine - 1;
      el.properties["dataSourceEndLine"] = pos.end.line + bodyLine - 1;
    };
    visit(tree);
  };
}

export function renderMarkdown(text: string): string {
  const split = splitFrontmatter(text);
  const bodyStart = split?.bodyStart ?? 0;
  const bodyLine = split ? text.slice(0, bodyStart).split("\n").length : 1;
  const file = unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRehype)
    .use(withPositions(text, bodyStart, bodyLine))
    .use(rehypeStringify)
    .processSync(text.slice(bodyStart));
  return String(file);
}
