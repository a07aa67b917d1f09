/**
 * `/docs/:docId`: the rendered main doc (POST /render) with each finding and thread beside
 * the block of text it anchors to, the verdict card, and a form to open a thread on the
 * selected text.
 */
import { memo } from "preact/compat";
import { useContext, useEffect, useMemo, useState } from "preact/hooks";
import { SessionContext } from "../session";
import { api, call, ApiProblem, type Schemas } from "../api/client";
import { Link } from "../router";
import { Button, Loading, ProblemBox, useAction, useApi } from "../ui";
import { DocShell, useDoc } from "./doc-shell";
import { VerdictCard } from "./verdict";
import { anchorFor, blocksOf, placeNotes, type Block, type Note } from "./anchors";

interface DocText {
  source: Uint8Array;
  blocks: Block[];
}

async function loadText(doc: Schemas["SpecDoc"]): Promise<DocText> {
  const res = await api.GET("/docs/{docId}/files/content", {
    params: { path: { docId: doc.id }, query: { path: doc.path } },
    parseAs: "arrayBuffer",
  });
  if (!res.response.ok) throw new ApiProblem(res.response.status, res.error ?? {});
  const source = new Uint8Array(res.data as ArrayBuffer);
  const markdown = new TextDecoder().decode(source);
  const { html } = await call(api.POST("/render", { body: { markdown } }));
  return { source, blocks: blocksOf(html) };
}

async function loadFindings(v: Schemas["Verdict"] | undefined): Promise<Schemas["Finding"][]> {
  if (!v) return [];
  const ids = [...new Set([v.run_id, v.ai_run_id].filter((x): x is string => !!x))];
  const lists = await Promise.all(
    ids.map((runId) => call(api.GET("/runs/{runId}/findings", { params: { path: { runId } } }))),
  );
  const seen = new Set<string>();
  return lists.flatMap((l) => l.items).filter((f) => !seen.has(f.id) && seen.add(f.id));
}

export function FindingNote({ f }: { f: Schemas["Finding"] }) {
  return (
    <div class={`note finding level-${f.level}`} data-finding-id={f.id}>
      <span class={`level level-${f.level}`}>{f.level}</span> <span class="check">{f.check_slug}</span>
      {f.waiver_id ? <span class="tag">waived</span> : null}
      {f.relaxed ? <span class="tag">relaxed</span> : null}
      <p>{f.message}</p>
      {f.has_fix !== false && f.stage !== "lint" ? (
        <Link href={`/runs/${f.run_id}#finding-${f.id}`}>Fix…</Link>
      ) : null}
    </div>
  );
}

function ThreadNote({ t }: { t: Schemas["Thread"] }) {
  return (
    <div class="note thread" data-thread-id={t.id}>
      <span class="tag">{t.addressed_to === "ai" ? "to the AI" : "thread"}</span>
      {t.blocking ? <span class="tag blocking">blocking</span> : null}
      {t.status === "resolved" ? <span class="tag">resolved</span> : null}
      <p>
        <strong>{t.title}</strong> <span class="muted">({t.message_count} messages)</span>
      </p>
      {t.messages[0] ? <p class="muted">{t.messages[0].body}</p> : null}
    </div>
  );
}

function NoteView({ n }: { n: Note }) {
  return n.kind === "finding" ? <FindingNote f={n.finding} /> : <ThreadNote t={n.thread} />;
}

/** One block of the doc and, beside it, what anchors to it. Memoized: a long doc re-renders only what changed. */
const Row = memo(function Row({ block, notes, index }: { block: Block; notes?: Note[]; index: number }) {
  return (
    <div class={notes ? "row has-notes" : "row"} data-block={index}>
      <div
        class="block"
        data-start={block.start}
        ref={(el) => {
          if (el && block.node.parentNode !== el) el.replaceChildren(block.node);
        }}
      />
      <aside class="notes" aria-label={notes ? `${notes.length} notes on this passage` : undefined}>
        {notes?.map((n) => (
          <NoteView key={n.kind === "finding" ? n.finding.id : n.thread.id} n={n} />
        ))}
      </aside>
    </div>
  );
});

interface Selected {
  block: Block;
  quote: string;
}

function ThreadForm({
  doc,
  text,
  sel,
  onDone,
}: {
  doc: Schemas["SpecDoc"];
  text: DocText;
  sel: Selected;
  onDone: () => void;
}) {
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [to, setTo] = useState<"humans" | "ai">("humans");
  const [blocking, setBlocking] = useState(false);
  const { me } = useContext(SessionContext);
  const act = useAction();
  return (
    <form
      class="card thread-form"
      aria-label="Open a thread on the selected text"
      onSubmit={(e) => {
        e.preventDefault();
        void act
          .run(() =>
            call(
              api.POST("/docs/{docId}/threads", {
                params: { path: { docId: doc.id } },
                body: {
                  anchor_kind: "text",
                  anchor: anchorFor(text.source, sel.block, sel.quote, doc.path),
                  addressed_to: to,
                  title: title || sel.quote.slice(0, 80),
                  body,
                  blocking,
                },
              }),
            ),
          )
          .then((t) => t && onDone());
      }}
    >
      <h2>Open a thread</h2>
      <blockquote>{sel.quote}</blockquote>
      <label>
        Title <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        Message <textarea required value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      </label>
      {/* A guest opens threads for people only (the API refuses one for the AI). */}
      {me?.guest ? null : (
        <fieldset>
          <legend>For</legend>
          <label>
            <input type="radio" name="to" checked={to === "humans"} onChange={() => setTo("humans")} /> people
          </label>
          <label>
            <input type="radio" name="to" checked={to === "ai"} onChange={() => setTo("ai")} /> the AI
          </label>
        </fieldset>
      )}
      <label>
        <input type="checkbox" checked={blocking} onChange={(e) => setBlocking(e.currentTarget.checked)} />{" "}
        Blocking
      </label>
      <div class="actions">
        <button
          type="submit"
          class="btn btn-primary"
          disabled={act.busy}
          aria-busy={act.busy ? "true" : undefined}
        >
          Open thread
        </button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
      <ProblemBox error={act.error} what="Threads" />
    </form>
  );
}

function DocBody({ doc }: { doc: Schemas["SpecDoc"] }) {
  const text = useApi(() => loadText(doc), [doc.id, doc.current_version.id]);
  const findings = useApi(() => loadFindings(doc.verdict), [doc.verdict?.run_id, doc.verdict?.ai_run_id]);
  const threads = useApi(
    () => call(api.GET("/docs/{docId}/threads", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  const [sel, setSel] = useState<Selected>();
  const [candidate, setCandidate] = useState<Selected>();

  // The selection inside the doc, kept as a candidate for "Open a thread" (mouse or keyboard).
  useEffect(() => {
    const onChange = () => {
      const s = document.getSelection();
      const quote = s?.toString().trim() ?? "";
      const node = s?.anchorNode;
      const el = node ? (node.nodeType === 1 ? (node as Element) : node.parentElement) : null;
      const row = el?.closest<HTMLElement>(".doc-text .row");
      const index = row ? Number(row.dataset.block) : NaN;
      const block = text.data?.blocks[index];
      setCandidate(quote && block ? { block, quote } : undefined);
    };
    document.addEventListener("selectionchange", onChange);
    return () => document.removeEventListener("selectionchange", onChange);
  }, [text.data]);

  const notes = useMemo(() => {
    if (!text.data) return new Map<number, Note[]>();
    const all: Note[] = [
      ...(findings.data ?? []).map((finding): Note => ({ kind: "finding", finding })),
      ...(threads.data?.items ?? []).map((thread): Note => ({ kind: "thread", thread })),
    ];
    return placeNotes(text.data.blocks, all);
  }, [text.data, findings.data, threads.data]);

  if (text.error) return <ProblemBox error={text.error} what="The doc's text" />;
  if (!text.data) return <Loading label="Rendering the doc" />;
  const unplaced = notes.get(-1);
  return (
    <div class="doc-layout">
      <div class="doc-main">
        <div class="doc-toolbar">
          <Button kind="primary" disabled={!candidate} onClick={() => setSel(candidate)}>
            Open a thread on the selection
          </Button>
          {findings.loading ? <Loading label="Loading findings" /> : null}
          <ProblemBox error={findings.error} what="Findings" />
          {threads.error ? <ProblemBox error={threads.error} what="Threads" /> : null}
        </div>
        {sel ? (
          <ThreadForm
            doc={doc}
            text={text.data}
            sel={sel}
            onDone={() => {
              setSel(undefined);
              threads.reload();
            }}
          />
        ) : null}
        {unplaced ? (
          <section class="unplaced" aria-label="Notes on the whole doc">
            {unplaced.map((n) => (
              <NoteView key={n.kind === "finding" ? n.finding.id : n.thread.id} n={n} />
            ))}
          </section>
        ) : null}
        <div class="doc-text" aria-label="Main doc">
          {text.data.blocks.map((b, i) => (
            <Row key={i} index={i} block={b} notes={notes.get(i)} />
          ))}
        </div>
      </div>
      <div class="doc-side">
        <VerdictCard doc={doc} />
      </div>
    </div>
  );
}

export function DocPage({ docId }: { docId: string }) {
  const doc = useDoc(docId);
  return (
    <DocShell docId={docId} tab="" doc={doc}>
      {(d) => <DocBody doc={d} />}
    </DocShell>
  );
}
