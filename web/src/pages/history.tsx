/**
 * `/docs/:docId/history?from=<version>&to=<version>`: the files of the current version, the
 * versions newest first, and the diff between two of them by section of the main doc.
 */
import { api, call, type Schemas } from "../api/client";
import { navigate, useLocation } from "../router";
import { Show, useApi, when } from "../ui";
import { DocShell, useDoc } from "./doc-shell";

/** A unified diff with added and removed lines marked (colour and a sign, for screen readers too). */
export function Patch({ patch }: { patch: string }) {
  return (
    <pre class="patch">
      {patch.split("\n").map((line, i) => (
        <span
          key={i}
          class={
            line.startsWith("+") && !line.startsWith("+++")
              ? "add"
              : line.startsWith("-") && !line.startsWith("---")
                ? "del"
                : line.startsWith("@@")
                  ? "hunk"
                  : undefined
          }
        >
          {line}
          {"\n"}
        </span>
      ))}
    </pre>
  );
}

function Diff({ docId, from, to }: { docId: string; from: string; to: string }) {
  const diff = useApi(
    () => call(api.GET("/docs/{docId}/diff", { params: { path: { docId }, query: { from, to } } })),
    [docId, from, to],
  );
  return (
    <Show loaded={diff} what="Diff">
      {(d: Schemas["VersionDiff"]) => (
        <section aria-labelledby="diff-h" class="diff">
          <h2 id="diff-h">
            Changes from version {d.from.number} to {d.to.number}
          </h2>
          {d.sections.length === 0 && d.files.length === 0 ? <p>No changes.</p> : null}
          {d.sections.map((s, i) => (
            <details key={i} open class={`section-change ${s.change}`}>
              <summary>
                {s.heading_path.join(" › ") || "(before the first heading)"}: {s.change}{" "}
                <span class="add">+{s.additions}</span> <span class="del">−{s.deletions}</span>
              </summary>
              <Patch patch={s.patch} />
            </details>
          ))}
          {d.files.filter((f) => f.path !== d.main_doc).length > 0 ? (
            <>
              <h3>Other files</h3>
              <ul class="plain">
                {d.files
                  .filter((f) => f.path !== d.main_doc)
                  .map((f) => (
                    <li key={f.path}>
                      <code>{f.path}</code> {f.change}
                      {f.binary ? " (binary)" : ` +${f.additions} −${f.deletions}`}
                      {f.patch ? <Patch patch={f.patch} /> : null}
                    </li>
                  ))}
              </ul>
            </>
          ) : null}
        </section>
      )}
    </Show>
  );
}

function History({ doc }: { doc: Schemas["SpecDoc"] }) {
  const loc = useLocation();
  const versions = useApi(
    () =>
      call(api.GET("/docs/{docId}/versions", { params: { path: { docId: doc.id }, query: { limit: 200 } } })),
    [doc.id],
  );
  const files = useApi(
    () => call(api.GET("/docs/{docId}/files", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  const items = versions.data?.items ?? [];
  const to = loc.query.get("to") ?? items[0]?.id ?? "";
  const from = loc.query.get("from") ?? items[1]?.id ?? "";
  const pick = (key: "from" | "to", value: string) => {
    const q = new URLSearchParams(location.search);
    q.set("from", key === "from" ? value : from);
    q.set("to", key === "to" ? value : to);
    navigate(`${location.pathname}?${q.toString()}`, true);
  };
  return (
    <div class="two-col">
      <section aria-labelledby="versions-h">
        <h2 id="versions-h">Versions</h2>
        <Show loaded={versions} what="Versions">
          {() => (
            <>
              <div class="filters">
                {(["from", "to"] as const).map((key) => (
                  <label key={key}>
                    {key === "from" ? "Compare" : "with"}{" "}
                    <select
                      value={key === "from" ? from : to}
                      onChange={(e) => pick(key, e.currentTarget.value)}
                    >
                      {items.map((v) => (
                        <option key={v.id} value={v.id}>
                          v{v.number}: {v.message}
                        </option>
                      ))}
                    </select>
                  </label>
                ))}
              </div>
              <ol class="versions">
                {items.map((v) => (
                  <li key={v.id}>
                    <strong>v{v.number}</strong> {v.message}{" "}
                    <span class="muted">
                      {v.created_by}, {when(v.created_at)}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </Show>
        <h2>Files</h2>
        <Show loaded={files} what="Files">
          {(f) => (
            <ul class="plain">
              {f.items.map((file) => (
                <li key={file.path}>
                  <code>{file.path}</code> <span class="muted">{file.size} bytes</span>
                </li>
              ))}
            </ul>
          )}
        </Show>
      </section>
      {from && to && from !== to ? (
        <Diff docId={doc.id} from={from} to={to} />
      ) : (
        <p>One version only: nothing to compare.</p>
      )}
    </div>
  );
}

export function HistoryPage({ docId }: { docId: string }) {
  const doc = useDoc(docId);
  return (
    <DocShell docId={docId} tab="history" doc={doc}>
      {(d) => <History doc={d} />}
    </DocShell>
  );
}
