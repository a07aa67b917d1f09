/** links-resolve: relative links and images point to files inside the bundle; `#fragments` to headings. */
import { z } from "zod";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";

export const options = z.strictObject({
  links: z.boolean().default(true).describe("Check links"),
  images: z.boolean().default(true).describe("Check images"),
  fragments: z.boolean().default(true).describe("Check `#fragment` links to headings of the same doc"),
});

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Resolve a relative reference against the folder of `from` (both bundle-relative, posix).
 * Returns the bundle-relative path, or undefined when it climbs out of the bundle.
 */
export function resolveInBundle(from: string, ref: string): string | undefined {
  const parts = ref.startsWith("/") ? [] : from.split("/").slice(0, -1);
  for (const seg of ref.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join("/");
}

export const linksResolve = defineCheck({
  kind: "links-resolve",
  description:
    "Relative links and images resolve to files inside the bundle; #fragments to headings of the doc",
  options,
  defaultMessage: "{detail}",
  check(ctx) {
    const { doc, params, files, file } = ctx;
    const findings: Finding[] = [];
    let folders: Set<string> | undefined;
    const isFolder = (path: string) => {
      if (!folders) {
        folders = new Set<string>();
        for (const f of files)
          for (let i = f.indexOf("/"); i >= 0; i = f.indexOf("/", i + 1)) folders.add(f.slice(0, i));
      }
      return path === "" || folders.has(path.replace(/\/$/, ""));
    };
    const slugs = new Set(doc.sections.map((s) => s.slug));
    for (const link of doc.links) {
      if (link.kind === "link" ? !params.links : !params.images) continue;
      const href = link.href.trim();
      const what = link.kind === "image" ? "Image" : "Link";
      const at = { charStart: link.charStart, charEnd: link.charEnd };
      if (href === "") {
        findings.push(ctx.finding({ ...at, detail: `${what} has an empty destination`, vars: { href } }));
        continue;
      }
      if (SCHEME.test(href) || href.startsWith("//")) continue;
      if (href.startsWith("#")) {
        if (!params.fragments || link.kind === "image") continue;
        let frag = href.slice(1);
        try {
          frag = decodeURIComponent(frag);
        } catch {
          /* keep it as written */
        }
        if (!slugs.has(frag.toLowerCase()))
          findings.push(
            ctx.finding({ ...at, detail: `${what} '${href}' names no heading of this doc`, vars: { href } }),
          );
        continue;
      }
      let path = href.replace(/[?#].*$/, "");
      try {
        path = decodeURIComponent(path);
      } catch {
        /* keep it as written */
      }
      if (href.startsWith("/")) {
        findings.push(
          ctx.finding({
            ...at,
            detail: `${what} '${href}' is absolute: use a path relative to the doc`,
            vars: { href },
          }),
        );
        continue;
      }
      const target = resolveInBundle(file, path);
      if (target === undefined)
        findings.push(
          ctx.finding({ ...at, detail: `${what} '${href}' points outside the bundle`, vars: { href } }),
        );
      else if (!files.has(target) && !isFolder(target))
        findings.push(
          ctx.finding({
            ...at,
            detail: `${what} '${href}' does not resolve to a file of the bundle`,
            vars: { href },
          }),
        );
    }
    return findings;
  },
});
