/**
 * `spec-review handoff <docId or path> [--out DIR]`: takes the build packet of a bundle
 * from a running service and writes it as files (node/handoff-packet.ts: HANDOFF.md first,
 * the spec files, links/, handoff.json), the same files `POST /docs/{docId}/handoff/zip`
 * holds. See docs/handoff.md.
 */
import { writePacket, type BuildPacket } from "../node/handoff-packet.js";
import { commandArgs, usageError } from "./args.js";

export const HANDOFF_USAGE = `spec-review handoff <docId or path> [options]

Takes the build packet of a bundle from a running spec-review service and writes its
files: HANDOFF.md (the prompt a coding agent reads first), the spec files, links/ (the
main doc of each linked bundle) and handoff.json (the manifest). The verdict must be a
current Build Ready, unless --acknowledged.

<path> is the bundle as the service lists it: its slug (shop/prd) or the path of its
main doc (shop/prd/prd.md).

Options:
  -o, --out <dir>       where to write (default: ./handoff-<slug>)
  -s, --server <url>    the service (default: $SPEC_REVIEW_URL, else http://127.0.0.1:8787)
  -l, --label <text>    what you call this work: a repo, a branch or a ticket
      --acknowledged    take the packet although the verdict is not a current Build Ready
  -h, --help            show this help

An API token, for a hosted service, is read from $SPEC_REVIEW_TOKEN.
Exit status: 0 written, 1 refused or failed, 2 usage error.
`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Problem {
  code?: string;
  detail?: string;
  title?: string;
}

export async function handoffCommand(argv: string[], env = process.env): Promise<number> {
  const parsed = commandArgs(
    "handoff",
    argv,
    {
      out: { type: "string", short: "o" },
      server: { type: "string", short: "s" },
      label: { type: "string", short: "l" },
      acknowledged: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    HANDOFF_USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const [target, ...extra] = parsed.positionals;
  if (!target) return usageError("handoff", "name a doc id or a bundle path");
  if (extra.length) return usageError("handoff", `one doc at a time (got ${parsed.positionals.length})`);
  const base = (parsed.values.server ?? env.SPEC_REVIEW_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const api = `${base}/api/v1`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (env.SPEC_REVIEW_TOKEN) headers.authorization = `Bearer ${env.SPEC_REVIEW_TOKEN}`;

  const fail = (message: string) => {
    process.stderr.write(`spec-review handoff: ${message}\n`);
    return 1;
  };
  const problemOf = async (res: Response) => {
    const p = (await res.json().catch(() => ({}))) as Problem;
    return `${res.status} ${p.code ?? ""}: ${p.detail ?? p.title ?? res.statusText}`;
  };

  let docId = target;
  try {
    if (!UUID.test(target)) {
      const want = target.replace(/^\.\/+/, "").replace(/\/+$/, "");
      const found: string[] = [];
      let cursor: string | undefined;
      do {
        const q = `limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const res = await fetch(`${api}/bundles?${q}`, { headers });
        if (!res.ok) return fail(`listing bundles: ${await problemOf(res)}`);
        const page = (await res.json()) as {
          items: Array<{ slug: string; docs: Array<{ id: string; path: string }> }>;
          next_cursor?: string;
        };
        for (const b of page.items)
          for (const d of b.docs)
            if (b.slug === want || `${b.slug}/${d.path}` === want || (b.slug === "." && d.path === want))
              found.push(d.id);
        cursor = page.next_cursor;
      } while (cursor && found.length === 0);
      if (found.length === 0) return fail(`no bundle at ${target} on ${base}`);
      docId = found[0]!;
    }
    const res = await fetch(`${api}/docs/${docId}/handoff`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        ...(parsed.values.acknowledged ? { acknowledged: true } : {}),
        ...(parsed.values.label ? { label: parsed.values.label } : {}),
      }),
    });
    if (!res.ok) return fail(await problemOf(res));
    const packet = (await res.json()) as BuildPacket;
    const out = parsed.values.out ?? `handoff-${packet.slug.replace(/[^A-Za-z0-9._-]+/g, "-")}`;
    const written = await writePacket(out, packet);
    process.stdout.write(`${written.length} files written to ${out}; the agent reads ${written[0]} first\n`);
    return 0;
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
}
