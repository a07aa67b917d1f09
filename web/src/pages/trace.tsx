/**
 * `/docs/:docId/trace`: outgoing and incoming links, the matrices of trace IDs with their
 * gaps, and suggested trace IDs ("Insert IDs", "This doc covers it").
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link } from "../router";
import { Button, ProblemBox, Show, useAction, useApi } from "../ui";
import { DocShell, useDoc } from "./doc-shell";

function Links({ title, links }: { title: string; links: Schemas["Link"][] }) {
  return (
    <section>
      <h2>{title}</h2>
      {links.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul class="plain">
          {links.map((l, i) => (
            <li key={i}>
              <span class="tag">{l.kind}</span>{" "}
              {l.bundle ? (
                <Link href={`/docs/${l.bundle.id}/trace`}>{l.bundle.title}</Link>
              ) : l.target_url ? (
                <a href={l.target_url} rel="noreferrer noopener" target="_blank">
                  {l.target_ref}
                </a>
              ) : (
                <code>{l.target_ref}</code>
              )}{" "}
              {l.state ? <span class={`tag link-${l.state}`}>{l.state}</span> : null}
              {l.state_reason ? <span class="muted"> {l.state_reason}</span> : null}
              <span class="muted"> ({l.origin})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Matrix({
  m,
  doc,
  onChange,
}: {
  m: Schemas["Matrix"];
  doc: Schemas["SpecDoc"];
  onChange: () => void;
}) {
  const gaps = m.cells.flat().filter((c) => c.state === "missing").length;
  return (
    <section class="matrix">
      <h3>
        IDs of <Link href={`/docs/${m.upstream.id}`}>{m.upstream.title}</Link>{" "}
        <span class={gaps ? "tag blocking" : "tag"}>{gaps} gaps</span>
      </h3>
      <div class="scroll" tabIndex={0} role="region" aria-label="Scrollable table">
        <table>
          <caption class="sr-only">Trace matrix of {m.upstream.title}</caption>
          <thead>
            <tr>
              <th scope="col">ID</th>
              {m.columns.map((c) => (
                <th scope="col" key={c.id}>
                  {c.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {m.rows.map((row, r) => (
              <tr key={row.id}>
                <th scope="row" title={row.text}>
                  {row.id}
                  {row.detached ? " (detached)" : ""}
                </th>
                {m.columns.map((col, c) => {
                  const cell = m.cells[r]?.[c];
                  return (
                    <td key={col.id} class={`cell-${cell?.state ?? "none"}`}>
                      {cell?.state === "missing" ? "gap" : (cell?.state ?? "")}
                      {cell?.state === "missing" && col.id === doc.id && m.editable[c] ? (
                        <CoverGap doc={doc} traceId={row.id} onDone={onChange} />
                      ) : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** "This doc covers it": appends `Covers <ID>.` to a chosen section as a new version. */
function CoverGap({
  doc,
  traceId,
  onDone,
  sections,
}: {
  doc: Schemas["SpecDoc"];
  traceId: string;
  onDone: () => void;
  sections?: string[][];
}) {
  const [section, setSection] = useState("");
  const act = useAction();
  const options = sections ?? [];
  return (
    <span class="cover">
      {options.length > 0 ? (
        <select
          aria-label={`Section that covers ${traceId}`}
          value={section}
          onChange={(e) => setSection(e.currentTarget.value)}
        >
          <option value="">pick a section</option>
          {options.map((s) => (
            <option key={s.join("\u0000")} value={JSON.stringify(s)}>
              {s.join(" › ")}
            </option>
          ))}
        </select>
      ) : (
        <input
          aria-label={`Heading path of the section that covers ${traceId} (› between levels)`}
          placeholder="Section › Subsection"
          value={section}
          onInput={(e) => setSection(e.currentTarget.value)}
        />
      )}
      <Button
        busy={act.busy}
        disabled={!section}
        onClick={() =>
          void act
            .run(() =>
              call(
                api.POST("/docs/{docId}/trace/cover", {
                  params: { path: { docId: doc.id }, query: { base_version: doc.current_version.id } },
                  body: {
                    trace_id: traceId,
                    section: section.startsWith("[")
                      ? (JSON.parse(section) as string[])
                      : section.split("›").map((s) => s.trim()),
                  },
                }),
              ),
            )
            .then((r) => r && onDone())
        }
      >
        This doc covers it
      </Button>
      <ProblemBox error={act.error} />
    </span>
  );
}

function TraceView({ doc, reloadDoc }: { doc: Schemas["SpecDoc"]; reloadDoc: () => void }) {
  const trace = useApi(
    () => call(api.GET("/docs/{docId}/trace", { params: { path: { docId: doc.id } } })),
    [doc.id, doc.current_version.id],
  );
  const insert = useAction();
  return (
    <Show loaded={trace} what="Trace">
      {(t) => (
        <>
          {t.problems.length > 0 ? (
            <ul class="plain">
              {t.problems.map((p, i) => (
                <li key={i} class="problem-text">
                  {p.message}
                </li>
              ))}
            </ul>
          ) : null}
          {t.standalone ? (
            <p>
              Standalone: {t.standalone.reason} (acknowledged by {t.standalone.acknowledged_by})
            </p>
          ) : null}
          <div class="two-col">
            <Links title="Links" links={t.links} />
            <Links title="Incoming" links={t.incoming} />
          </div>
          <h2>Matrices</h2>
          {t.matrices.length === 0 ? (
            <p class="muted">No trace matrix: no linked bundle implements this one.</p>
          ) : null}
          {t.matrices.map((m) => (
            <Matrix key={m.upstream.id} m={m} doc={doc} onChange={reloadDoc} />
          ))}
          <h2>Suggested trace IDs</h2>
          {t.suggestions.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <>
              <ul class="plain">
                {t.suggestions.map((s) => (
                  <li key={s.id}>
                    <code>{s.id}</code> {s.text}
                    {s.sections ? (
                      <CoverGap doc={doc} traceId={s.id} sections={s.sections} onDone={reloadDoc} />
                    ) : null}
                  </li>
                ))}
              </ul>
              <Button
                kind="primary"
                busy={insert.busy}
                onClick={() =>
                  void insert
                    .run(() =>
                      call(
                        api.POST("/docs/{docId}/trace/ids", {
                          params: {
                            path: { docId: doc.id },
                            query: { base_version: doc.current_version.id },
                          },
                          body: { ids: t.suggestions.map((s) => s.id) },
                        }),
                      ),
                    )
                    .then((r) => r && reloadDoc())
                }
              >
                Insert IDs
              </Button>
              <ProblemBox error={insert.error} />
            </>
          )}
        </>
      )}
    </Show>
  );
}

export function TracePage({ docId }: { docId: string }) {
  const doc = useDoc(docId);
  return (
    <DocShell docId={docId} tab="trace" doc={doc}>
      {(d) => <TraceView doc={d} reloadDoc={doc.reload} />}
    </DocShell>
  );
}
