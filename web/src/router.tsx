/**
 * A small history router: every page has its own path, so any page is a deep link
 * (the server answers index.html for page paths: server/web-static.ts).
 */
import { useEffect, useState } from "preact/hooks";
import type { AnchorHTMLAttributes, ComponentChildren } from "preact";

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return loc;
}

/** `/docs/:docId/trace` against a path: the named segments, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split("/");
  const s = path.replace(/\/+$/, "").split("/");
  if (path === "/" && pattern === "/") return {};
  if (p.length !== s.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    const seg = s[i]!;
    if (part.startsWith(":")) {
      if (!seg) return undefined;
      out[part.slice(1)] = decodeURIComponent(seg);
    } else if (part !== seg) return undefined;
  }
  return out;
}

/** A link that changes page without reloading (a modified click still opens a new tab). */
export function Link(
  props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children?: ComponentChildren },
) {
  const { href, ...rest } = props;
  return (
    <a
      {...rest}
      href={href}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    />
  );
}
