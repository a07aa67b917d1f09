/** links-resolve: relative links and images point to files inside the bundle; `#fragments` to headings. */
import { z } from "zod";
import { defineCheck } from "./define.js";
import type { Finding, Level } from "../types.js";

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

/** A fragment or heading in its loosest form: letters and digits only (renderers slug headings differently). */
function looseSlug(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/** A target that only stands in for one: TODO, TBD, XXX, a template's `nnnn-` or `yyyymmdd-xxx`. */
const PLACEHOLDER_TARGET =
  /^(?:\.\.\.|…|link|url|here|target)$|(?<![\p{L}\p{N}])(?:todo|tbd|tbc|fixme|xxx+|nnnn|yyyy(?:mmdd)?|yyyy-mm-dd)(?![\p{L}\p{N}])/iu;
/** A web address written without its scheme: `www.example.com/...`, `golang.org/issue/1`, `github.com/org/repo`. */
export const NO_SCHEME =
  /^(?:www\.[^/\s]+|(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|edu|gov|info|co|app|ai|me|us|uk|de|fr|eu|ca|jp|cn|ly|gl|gg|tv)(?::\d+)?\/)/i;
export const EMAIL = /^[^\s/@:]+@[^\s/@:]+\.[a-z]{2,}$/i;

/** Lower a finding's level when the cause is plain and the target is not a file the bundle or repository lacks. */
function atLevel(f: Finding, level: Level): Finding {
  const rank = (l: Level) => (l === "MUST" ? 2 : l === "SHOULD" ? 1 : 0);
  return rank(level) < rank(f.level) ? { ...f, level } : f;
}

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
        for (const s of doc.sections) if (s.slug !== "") targets.add(s.slug.toLowerCase());
      }
      return targets;
    };
    // Headings and anchors by their loosest form, for a fragment another renderer's slugs would find.
    let loose: Map<string, string> | undefined;
    const looseTarget = (frag: string): string | undefined => {
      if (!loose) {
        loose = new Map();
        for (const s of doc.sections)
          if (s.slug !== "") {
            if (!loose.has(looseSlug(s.slug))) loose.set(looseSlug(s.slug), s.slug);
            if (!loose.has(looseSlug(s.title))) loose.set(looseSlug(s.title), s.slug);
          }
        for (const a of fragmentTargets()) if (!loose.has(looseSlug(a))) loose.set(looseSlug(a), a);
      }
      const l = looseSlug(frag);
      return l === "" ? undefined : loose.get(l);
    };
    /** A fragment of this doc, as written: undefined when it names a heading or anchor, else the finding's detail and level. */
    const judgeFragment = (
      raw: string,
      what: string,
      href: string,
    ): { detail: string; level?: Level } | undefined => {
      let frag = raw;
      try {
        frag = decodeURIComponent(frag);
      } catch {
        /* keep it as written */
      }
      frag = frag.toLowerCase().replace(/^user-content-/, "");
      if (fragmentTargets().has(frag)) return undefined;
      const extraHashes = /^#+/.exec(frag)?.[0].length ?? 0;
      if (extraHashes > 0 && fragmentTargets().has(frag.slice(extraHashes).replace(/^user-content-/, "")))
        return {
          detail: `${what} '${href}' has ${extraHashes + 1} '#': write '#${frag.slice(extraHashes)}'`,
          level: "SHOULD",
        };
      const near = looseTarget(frag);
      if (near !== undefined)
        return {
          detail: `${what} '${href}' finds heading '#${near}' only as other renderers spell slugs: write '#${near}'`,
          level: "INFO",
        };
      return { detail: `${what} '${href}' names no heading or anchor of this doc` };
    };
    const notes = footnoteTargets(doc.text);
    const repoHas = (path: string): boolean => {
      if (!repo) return false;
      try {
        return repo.exists(path);
      } catch {
        return true;
      }
    };
    let lowerFiles: Map<string, string> | undefined;
    /** A file of the bundle the target almost names: another case, or without its `.md`. */
    const nearMiss = (
      target: string,
      what: string,
      href: string,
    ): { detail: string; level?: Level } | undefined => {
      if (!lowerFiles) {
        lowerFiles = new Map();
        for (const f of files) if (!lowerFiles.has(f.toLowerCase())) lowerFiles.set(f.toLowerCase(), f);
      }
      const cased = lowerFiles.get(target.toLowerCase());
      if (cased !== undefined)
        return {
          detail: `${what} '${href}' differs in case from the file '${cased}': it breaks on case-sensitive hosts such as GitHub`,
        };
      if (
        !/\.[a-z0-9]+$/i.test(target) &&
        (files.has(`${target}.md`) || lowerFiles.has(`${target.toLowerCase()}.md`))
      )
        return {
          detail: `${what} '${href}' names '${target}.md' without its extension: sites that drop '.md' resolve it, GitHub does not`,
          level: "SHOULD",
        };
      return undefined;
    };
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
      // Plainer causes first: a placeholder for a target, an e-mail address or a web address without its scheme.
      if (PLACEHOLDER_TARGET.test(href)) {
        findings.push(
          ctx.finding({
            ...at,
            detail: `${what} target '${href}' is a placeholder: link the real target`,
            vars: { href },
          }),
        );
        continue;
      }
      // An address or a site named without its scheme: the reader still knows where it
      // points, so it is a slip to fix (SHOULD), never a target the bundle lacks.
      if (EMAIL.test(href)) {
        findings.push(
          atLevel(
            ctx.finding({
              ...at,
              detail: `${what} '${href}' is an e-mail address: write 'mailto:${href}'`,
              vars: { href },
            }),
            "SHOULD",
          ),
        );
        continue;
      }
      if (NO_SCHEME.test(href) && !files.has(resolveInBundle(file, href.replace(/[?#].*$/, "")) ?? "")) {
        findings.push(
          atLevel(
            ctx.finding({
              ...at,
              detail: `${what} '${href}' is a web address without its scheme: write 'https://${href}'`,
              vars: { href },
            }),
            "SHOULD",
          ),
        );
        continue;
      }
      // "(#fragment)": the link's parentheses written twice.
      const unwrapped = /^\((#[^()]*)\)$/.exec(href)?.[1];
      if (href.startsWith("#") || unwrapped !== undefined) {
        if (!params.fragments || link.kind === "image" || href === "#") continue;
        const j = judgeFragment((unwrapped ?? href).slice(1), what, href);
        if (j === undefined && unwrapped !== undefined)
          findings.push(
            atLevel(
              ctx.finding({
                ...at,
                detail: `${what} '${href}' is in parentheses twice: write '${unwrapped}'`,
                vars: { href },
              }),
              "SHOULD",
            ),
          );
        else if (j !== undefined) {
          const f = ctx.finding({ ...at, detail: j.detail, vars: { href } });
          findings.push(j.level ? atLevel(f, j.level) : f);
        }
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
      // A heading of this doc named without its '#'.
      if (
        params.fragments &&
        link.kind === "link" &&
        !/[/.]/.test(path) &&
        fragmentTargets().has(path.toLowerCase()) &&
        !repoHas(resolveInBundle(repo?.bundlePath ? `${repo.bundlePath}/${file}` : file, path) ?? "")
      ) {
        findings.push(
          ctx.finding({
            ...at,
            detail: `${what} '${href}' names a heading of this doc without its '#': write '#${href}'`,
            vars: { href },
          }),
        );
        continue;
      }
      const near = target === undefined ? undefined : nearMiss(target, what, href);
      if (near) {
        findings.push(
          near.level
            ? atLevel(ctx.finding({ ...at, detail: near.detail, vars: { href } }), near.level)
            : ctx.finding({ ...at, detail: near.detail, vars: { href } }),
        );
        continue;
      }
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
        let found = repoHas(inRepo);
        // "/proposals/x.md" when the repository's root is the folder "proposals" itself: the root above it.
        if (!found && absolute) {
          const parts = inRepo.split("/");
          for (let k = 1; k < parts.length && !found; k++) found = repoHas(parts.slice(k).join("/"));
        }
        // "44167/plot.png" in "44167/doc.src.md": written from the folder above, where the doc is rendered.
        let above: string | undefined;
        if (!found && !absolute && repo.bundlePath !== "") {
          const base = repo.bundlePath.split("/");
          for (let k = base.length - 1; k >= 0 && above === undefined; k--) {
            const from = base.slice(0, k).join("/");
            const p = resolveInBundle(from === "" ? "x" : `${from}/x`, path);
            if (p !== undefined && repoHas(p)) above = from === "" ? "the repository's root" : `'${from}'`;
          }
        }
        if (!found && above !== undefined)
          findings.push(
            atLevel(
              ctx.finding({
                ...at,
                detail: `${what} '${href}' resolves from ${above}, not from this doc's folder: the doc may be rendered there`,
                vars: { href },
              }),
              "SHOULD",
            ),
          );
        else if (!found && absolute && repo.rootKnown === false)
          // The folder taken as the root is not known to be the repository's: the link may
          // name a file of the repository around it.
          findings.push(
            atLevel(
              ctx.finding({
                ...at,
                detail: `${what} '${href}' names no file of the linted folder, which may not be the repository's root`,
                vars: { href },
              }),
              "SHOULD",
            ),
          );
        else if (!found)
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
