/** links-resolve: relative links and images point to files inside the bundle; `#fragments` to headings. */
import { z } from "zod";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";

export const options = z.strictObject({
  links: z.boolean().default(true).describe("Check links"),
  images: z.boolean().default(true).describe("Check images"),
  fragments: z
    .boolean()
    .default(true)
    .describe(
      "Check `#fragment` links: GitHub heading slugs, `<a id>`/`<a name>` and other HTML ids of the doc",
    ),
  outside: z
    .enum(["repository", "report"])
    .default("repository")
    .describe(
      "Links that leave the bundle: `repository` resolves them in the repository or served folder when the caller knows it (not judged otherwise); `report` flags every one",
    ),
});

/** Ids a `#fragment` can name besides heading slugs: `id` and `name` attributes of HTML in the doc. */
export function htmlAnchors(text: string): Set<string> {
  const out = new Set<string>();
  if (text.indexOf("<") < 0) return out;
  const re = /<[a-z][a-z0-9]*\b[^>]*?\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) out.add((m[1] ?? m[2] ?? m[3] ?? "").toLowerCase());
  return out;
}

/** Destinations written in footnote definitions (`[^1]: ...`): notes, not links. */
function footnoteTargets(text: string): Set<string> {
  const out = new Set<string>();
  if (text.indexOf("[^") < 0) return out;
  const re = /^[ ]{0,3}\[\^[^\]\n]+\]:[ \t]*<?([^\s>]+)/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.add(m[1]!);
  return out;
}

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
    "Relative links and images resolve (in the bundle, else in the repository); #fragments name a heading or an HTML anchor",
  options,
  defaultMessage: "{detail}",
  check(ctx) {
    const { doc, params, files, file, repo } = ctx;
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
    let targets: Set<string> | undefined;
    const fragmentTargets = () => {
      if (!targets) {
        targets = htmlAnchors(doc.text);
        for (const s of doc.sections) if (s.slug !== "") targets.add(s.slug);
      }
      return targets;
    };
    const notes = footnoteTargets(doc.text);
    for (const link of doc.links) {
      if (link.kind === "link" ? !params.links : !params.images) continue;
      const href = link.href.trim();
      const what = link.kind === "image" ? "Image" : "Link";
      const at = { charStart: link.charStart, charEnd: link.charEnd };
      if (href === "") {
        findings.push(ctx.finding({ ...at, detail: `${what} has an empty destination`, vars: { href } }));
        continue;
      }
      if (SCHEME.test(href) || href.startsWith("//") || notes.has(link.href)) continue;
      if (href.startsWith("#")) {
        if (!params.fragments || link.kind === "image" || href === "#") continue;
        let frag = href.slice(1);
        try {
          frag = decodeURIComponent(frag);
        } catch {
          /* keep it as written */
        }
        frag = frag.toLowerCase().replace(/^user-content-/, "");
        if (!fragmentTargets().has(frag))
          findings.push(
            ctx.finding({
              ...at,
              detail: `${what} '${href}' names no heading or anchor of this doc`,
              vars: { href },
            }),
          );
        continue;
      }
      let path = href.replace(/[?#].*$/, "");
      try {
        path = decodeURIComponent(path);
      } catch {
        /* keep it as written */
      }
      if (path === "") continue;
      const absolute = path.startsWith("/");
      const target = absolute ? undefined : resolveInBundle(file, path);
      if (target !== undefined && (files.has(target) || isFolder(target))) continue;
      // Not a file of the bundle: the repository around it decides, when we know it.
      if (params.outside === "repository" && (target === undefined || repo)) {
        if (!repo) continue;
        const inRepo = absolute
          ? resolveInBundle("", path.slice(1))
          : resolveInBundle(repo.bundlePath === "" ? file : `${repo.bundlePath}/${file}`, path);
        if (inRepo === undefined) {
          findings.push(
            ctx.finding({ ...at, detail: `${what} '${href}' points outside the repository`, vars: { href } }),
          );
          continue;
        }
        let found: boolean;
        try {
          found = repo.exists(inRepo);
        } catch {
          found = true;
        }
        if (!found)
          findings.push(
            ctx.finding({
              ...at,
              detail: `${what} '${href}' does not resolve to a file of the repository`,
              vars: { href },
            }),
          );
        continue;
      }
      findings.push(
        ctx.finding({
          ...at,
          detail:
            target === undefined
              ? `${what} '${href}' points outside the bundle`
              : `${what} '${href}' does not resolve to a file of the bundle`,
          vars: { href },
        }),
      );
    }
    return findings;
  },
});
