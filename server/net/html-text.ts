/**
 * The readable text of an HTML page, for a model to compare with a spec: scripts, styles and
 * comments dropped, block elements on their own lines, tags removed, the common entities
 * decoded. It is not a renderer: the model needs the words, not the layout.
 */

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

const BLOCK =
  /<\/?(p|div|section|article|main|header|footer|nav|aside|li|ul|ol|table|tr|h[1-6]|pre|blockquote|br|hr|dt|dd|details|summary)\b[^>]*>/gi;

export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<(td|th)\b[^>]*>/gi, " ")
    .replace(BLOCK, "\n")
    .replace(/<[^>]*>/g, "");
  return decodeEntities(text)
    .split("\n")
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n")
    .trim();
}
