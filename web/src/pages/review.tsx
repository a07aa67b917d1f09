/**
 * `/docs/:docId/review`: the estimate of a full review first, then start it; the runs so far.
 * `/runs/:runId`: a run followed live over GET /runs/{runId}/events (stage, progress,
 * findings as they arrive), then its build questions with each reader's answer side by side
 * and the divergence marked, its claims, the tour, and a finding's fix as a diff to accept.
 */
import { useEffect, useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link, navigate } from "../router";
import { Button, Loading, ProblemBox, Show, StateChip, useAction, useApi, when } from "../ui";
import { DocShell, useDoc } from "./doc-shell";
import { FindingNote } from "./doc";
import { Patch } from "./history";

function Estimate({ doc }: { doc: Schemas["SpecDoc"] }) {
  const est = useApi(
    () => call(api.GET("/docs/{docId}/runs/estimate", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  const start = useAction();
  return (
    <section class="card" aria-labelledby="estimate-h">
      <h2 id="estimate-h">Start a full review</h2>
      <Show loaded={est} what="Estimate">
        {(e) => (
          <p>
            About <strong>{e.calls}</strong> model calls ({e.cached_steps} steps cached),{" "}
            {e.tokens_in.toLocaleString()} tokens in and {e.tokens_out.toLocaleString()} out
            {e.priced && e.cost_usd !== undefined
              ? `, about $${e.cost_usd.toFixed(2)}`
              : " (no prices set for the reviewer role)"}
            .
          </p>
        )}
      </Show>
      <Button
        kind="primary"
        busy={start.busy}
        onClick={() =>
          void start
            .run(() => call(api.POST("/docs/{docId}/runs", { params: { path: { docId: doc.id } } })))
            .then((run) => run && navigate(`/runs/${run.id}`))
        }
      >
        Start the review
      </Button>
      <ProblemBox error={start.error} />
    </section>
  );
}

function Runs({ doc }: { doc: Schemas["SpecDoc"] }) {
  const runs = useApi(
    () => call(api.GET("/docs/{docId}/runs", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  return (
    <section aria-labelledby="runs-h">
      <h2 id="runs-h">Runs</h2>
      <Show loaded={runs} what="Runs">
        {(r) => (
          <ul class="plain">
            {r.items.map((run) => (
              <li key={run.id}>
                <Link href={`/runs/${run.id}`}>
                  {run.kind === "full" ? "Full review" : "Lint"} of version {run.version_number}
                </Link>{" "}
                <span class="tag">{run.status}</span>{" "}
                {run.verdict ? <StateChip state={run.verdict.result} /> : null}{" "}
                <span class="muted">{when(run.created_at)}</span>
              </li>
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}

export function ReviewPage({ docId }: { docId: string }) {
  const doc = useDoc(docId);
  return (
    <DocShell docId={docId} tab="review" doc={doc}>
      {(d) => (
        <>
          <Estimate doc={d} />
          <Runs doc={d} />
        </>
      )}
    </DocShell>
  );
}

interface StageState {
  stage: string;
  status: string;
  done?: number;
  total?: number;
}

interface Live {
  stages: StageState[];
  findings: Schemas["Finding"][];
  ended?: "done" | "failed";
  error?: string;
}

/** Follows the run's events until `done` or `failed` (EventSource reconnects by itself with Last-Event-ID). */
function useRunEvents(runId: string, active: boolean): Live {
  const [live, setLive] = useState<Live>({ stages: [], findings: [] });
  useEffect(() => {
    if (!active) return;
    const es = new EventSource(`/api/v1/runs/${encodeURIComponent(runId)}/events`);
    const parse = (e: MessageEvent<unknown>) => JSON.parse(String(e.data)) as Record<string, unknown>;
    es.addEventListener("stage", (e) => {
      const d = parse(e) as unknown as StageState;
      setLive((l) => {
        const stages = l.stages.filter((s) => s.stage !== d.stage);
        return { ...l, stages: [...stages, d] };
      });
    });
    es.addEventListener("finding", (e) => {
      const f = parse(e) as unknown as Schemas["Finding"];
      setLive((l) => ({ ...l, findings: [...l.findings, f] }));
    });
    for (const end of ["done", "failed"] as const)
      es.addEventListener(end, (e) => {
        const d = parse(e);
        es.close();
        setLive((l) => ({ ...l, ended: end, error: typeof d.error === "string" ? d.error : undefined }));
      });
    return () => es.close();
  }, [runId, active]);
  return live;
}

function Progress({ live }: { live: Live }) {
  return (
    <section class="card" aria-labelledby="progress-h" aria-live="polite">
      <h2 id="progress-h">Progress</h2>
      {live.stages.length === 0 ? <Loading label="Waiting for the run to start" /> : null}
      <ul class="plain stages">
        {live.stages.map((s) => (
          <li key={s.stage}>
            <span class="stage-name">{s.stage}</span>{" "}
            {s.total ? (
              <progress max={s.total} value={s.done ?? 0} aria-label={`${s.stage} progress`}>
                {s.done}/{s.total}
              </progress>
            ) : null}{" "}
            <span class="muted">
              {s.status}
              {s.total ? ` ${s.done ?? 0}/${s.total}` : ""}
            </span>
          </li>
        ))}
      </ul>
      <p>{live.findings.length} findings so far</p>
    </section>
  );
}

/** Each reader's answer in its own column; readers in different groups of meaning are marked as diverging. */
function Questions({ runId }: { runId: string }) {
  const qs = useApi(() => call(api.GET("/runs/{runId}/questions", { params: { path: { runId } } })), [runId]);
  return (
    <section aria-labelledby="questions-h">
      <h2 id="questions-h">Build questions</h2>
      <Show loaded={qs} what="Build questions">
        {(q) =>
          q.items.length === 0 ? (
            <p class="muted">This run asked no build questions.</p>
          ) : (
            q.items.map((b) => {
              const diverged = b.groups.length > 1;
              return (
                <div key={b.id} class={`question${diverged ? " diverged" : ""}`}>
                  <h3>
                    {b.number}. {b.text} <span class="tag">{b.level}</span>{" "}
                    <span class={diverged ? "tag blocking" : "tag"}>
                      {diverged ? "readers diverge" : b.result}
                    </span>
                  </h3>
                  <div class="answers" role="table" aria-label={`Answers to question ${b.number}`}>
                    <div role="row" class="answers-row">
                      {b.answers.map((a) => {
                        const group = b.groups.findIndex((g) => g.includes(a.reader));
                        return (
                          <div
                            role="cell"
                            key={a.reader}
                            class={`answer group-${group}${a.answered ? "" : " unanswered"}`}
                          >
                            <strong>Reader {a.reader}</strong>
                            {diverged ? <span class="muted"> (group {group + 1})</span> : null}
                            <p>{a.answered ? a.answer : `Not specified${a.answer ? `: ${a.answer}` : ""}`}</p>
                            {a.quotes.map((qt, i) => (
                              <blockquote key={i} class={qt.found ? "" : "not-found"}>
                                {qt.text}
                                {qt.found ? "" : " (quote not found in the bundle)"}
                              </blockquote>
                            ))}
                          </div>
                        );
                      })}
                    </div>
                  </div>
                </div>
              );
            })
          )
        }
      </Show>
    </section>
  );
}

function Claims({ runId }: { runId: string }) {
  const claims = useApi(
    () => call(api.GET("/runs/{runId}/claims", { params: { path: { runId } } })),
    [runId],
  );
  return (
    <section aria-labelledby="claims-h">
      <h2 id="claims-h">Claims</h2>
      <Show loaded={claims} what="Claims">
        {(c) =>
          c.items.length === 0 ? (
            <p class="muted">No factual claims.</p>
          ) : (
            <ul class="plain">
              {c.items.map((cl) => (
                <li key={cl.id}>
                  <span class={`tag claim-${cl.label}`}>{cl.label}</span> {cl.text}
                  <p class="muted">{cl.explanation}</p>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function Tour({ docId }: { docId: string }) {
  const tour = useApi(() => call(api.GET("/docs/{docId}/tour", { params: { path: { docId } } })), [docId]);
  return (
    <section aria-labelledby="tour-h">
      <h2 id="tour-h">Tour: what needs a decision</h2>
      <Show loaded={tour} what="Tour">
        {(t) =>
          t.items.length === 0 ? (
            <p class="muted">Nothing waits for a decision.</p>
          ) : (
            <ol>
              {t.items.map((p) => (
                <li key={p.key}>
                  <span class="tag">{p.kind}</span> {p.sentence}
                  {p.anchor ? <blockquote>{p.anchor.quote}</blockquote> : null}
                </li>
              ))}
            </ol>
          )
        }
      </Show>
    </section>
  );
}

function Fix({
  run,
  finding,
  doc,
}: {
  run: Schemas["Run"];
  finding: Schemas["Finding"];
  doc?: Schemas["SpecDoc"];
}) {
  const ask = useAction();
  const accept = useAction();
  const [fix, setFix] = useState<Schemas["FindingFix"]>();
  const [accepted, setAccepted] = useState(false);
  const path = { runId: run.id, findingId: finding.id };
  return (
    <div class="fix">
      {!fix ? (
        <Button
          busy={ask.busy}
          onClick={() =>
            void ask
              .run(() => call(api.POST("/runs/{runId}/findings/{findingId}/fix", { params: { path } })))
              .then((f) => f && setFix(f))
          }
        >
          Suggest a fix
        </Button>
      ) : (
        <>
          {fix.explanation ? <p>{fix.explanation}</p> : null}
          <Patch patch={fix.patch} />
          {accepted ? (
            <p role="status">Accepted: the doc has a new version.</p>
          ) : (
            <Button
              kind="primary"
              busy={accept.busy}
              disabled={!doc}
              onClick={() =>
                void accept
                  .run(() =>
                    call(
                      api.POST("/runs/{runId}/findings/{findingId}/fix/accept", {
                        params: { path, query: { base_version: doc!.current_version.id } },
                      }),
                    ),
                  )
                  .then((r) => r && setAccepted(true))
              }
            >
              Accept the fix
            </Button>
          )}
        </>
      )}
      {ask.busy ? <Loading label="Asking the AI for a patch" /> : null}
      <ProblemBox error={ask.error ?? accept.error} />
    </div>
  );
}

function Findings({ run }: { run: Schemas["Run"] }) {
  const findings = useApi(
    () => call(api.GET("/runs/{runId}/findings", { params: { path: { runId: run.id } } })),
    [run.id],
  );
  const doc = useApi(
    () => call(api.GET("/docs/{docId}", { params: { path: { docId: run.doc_id } } })),
    [run.doc_id],
  );
  return (
    <section aria-labelledby="findings-h">
      <h2 id="findings-h">Findings</h2>
      <Show loaded={findings} what="Findings">
        {(f) => (
          <ul class="plain findings">
            {f.items.map((x) => (
              <li key={x.id} id={`finding-${x.id}`}>
                <FindingNote f={x} />
                {x.anchor ? <blockquote>{x.anchor.quote}</blockquote> : null}
                {run.kind === "full" && x.stage !== "lint" && x.has_fix !== false ? (
                  <Fix run={run} finding={x} doc={doc.data} />
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}

export function RunPage({ runId }: { runId: string }) {
  const run = useApi(() => call(api.GET("/runs/{runId}", { params: { path: { runId } } })), [runId]);
  const r = run.data;
  const active = !!r && (r.status === "queued" || r.status === "running");
  const live = useRunEvents(runId, active);
  const reload = run.reload;
  useEffect(() => {
    if (live.ended) reload();
  }, [live.ended, reload]);
  return (
    <Show loaded={run} what="Run">
      {(r) => (
        <article>
          <p class="crumbs">
            <Link href={`/docs/${r.doc_id}`}>Doc</Link> /{" "}
            <Link href={`/docs/${r.doc_id}/review`}>Review</Link>
          </p>
          <h1>
            {r.kind === "full" ? "Full review" : "Lint"} of version {r.version_number}{" "}
            <span class="tag run-status" data-status={r.status}>
              {r.status}
            </span>{" "}
            {r.verdict ? <StateChip state={r.verdict.result} /> : null}
          </h1>
          {r.error ? <p class="problem-text">{r.error}</p> : null}
          {active ? <Progress live={live} /> : null}
          {active && live.findings.length > 0 ? (
            <ul class="plain findings">
              {live.findings.map((f) => (
                <li key={f.id}>
                  <FindingNote f={f} />
                </li>
              ))}
            </ul>
          ) : null}
          {!active ? (
            <>
              {r.kind === "full" ? <Questions runId={r.id} /> : null}
              {r.kind === "full" ? <Claims runId={r.id} /> : null}
              {r.kind === "full" ? <Tour docId={r.doc_id} /> : null}
              <Findings run={r} />
            </>
          ) : null}
        </article>
      )}
    </Show>
  );
}
