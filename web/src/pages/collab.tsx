/**
 * `/docs/:docId/collab`: threads, waivers with their approvals, the review status with
 * approval; `/inbox`: the caller's inbox. Operations the server has not built answer 501,
 * shown as "not available yet" with the server's own words.
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link } from "../router";
import { Button, ProblemBox, Show, useAction, useApi, when } from "../ui";
import { DocShell, useDoc } from "./doc-shell";

/** One thread: its messages, a reply (the AI answers a thread addressed to it), resolve or reopen, blocking. */
function ThreadItem({ th, onChange }: { th: Schemas["Thread"]; onChange: () => void }) {
  const [reply, setReply] = useState("");
  const act = useAction();
  const path = { threadId: th.id };
  const done = (r: unknown) => {
    if (r !== undefined) onChange();
  };
  return (
    <li class="thread-item" data-thread-id={th.id}>
      <strong>{th.title}</strong> <span class="tag">{th.status}</span>
      {th.blocking ? <span class="tag blocking">blocking</span> : null}
      {th.answering ? <span class="tag">the AI is answering…</span> : null}{" "}
      <span class="muted">
        {th.created_by}, {when(th.created_at)}
      </span>
      <ol class="messages">
        {th.messages.map((m) => (
          <li key={m.id}>
            <strong>{m.author_name}</strong>
            {m.decision ? <span class="tag">{m.decision}</span> : null}: {m.body}
          </li>
        ))}
      </ol>
      <form
        class="actions"
        onSubmit={(e) => {
          e.preventDefault();
          void act
            .run(() =>
              call(api.POST("/threads/{threadId}/messages", { params: { path }, body: { body: reply } })),
            )
            .then((r) => {
              if (r !== undefined) setReply("");
              done(r);
            });
        }}
      >
        <label>
          Reply to “{th.title}”
          <textarea required value={reply} onInput={(e) => setReply(e.currentTarget.value)} />
        </label>
        <button type="submit" class="btn btn-primary" disabled={act.busy}>
          Reply
        </button>{" "}
        <Button
          busy={act.busy}
          onClick={() =>
            void act
              .run(() =>
                call(
                  api.PUT("/threads/{threadId}/status", {
                    params: { path },
                    body: { open: th.status !== "open" },
                  }),
                ),
              )
              .then(done)
          }
        >
          {th.status === "open" ? "Resolve" : "Reopen"}
        </Button>{" "}
        <Button
          busy={act.busy}
          onClick={() =>
            void act
              .run(() =>
                call(
                  api.PUT("/threads/{threadId}/blocking", {
                    params: { path },
                    body: { blocking: !th.blocking },
                  }),
                ),
              )
              .then(done)
          }
        >
          {th.blocking ? "Not blocking" : "Mark blocking"}
        </Button>
      </form>
      <ProblemBox error={act.error} />
    </li>
  );
}

function Threads({ doc }: { doc: Schemas["SpecDoc"] }) {
  const threads = useApi(
    () => call(api.GET("/docs/{docId}/threads", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  return (
    <section aria-labelledby="threads-h">
      <h2 id="threads-h">Threads</h2>
      <Show loaded={threads} what="Threads">
        {(t) =>
          t.items.length === 0 ? (
            <p class="muted">No threads. Select text on the doc page to open one.</p>
          ) : (
            <ul class="plain">
              {t.items.map((th) => (
                <ThreadItem key={th.id} th={th} onChange={threads.reload} />
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function WaiverItem({ w, onChange }: { w: Schemas["Waiver"]; onChange: () => void }) {
  const act = useAction();
  const [reason, setReason] = useState("");
  return (
    <li>
      <span class="tag">{w.status}</span> {w.reason}{" "}
      <span class="muted">
        {w.created_by}; {w.approvals.length}/{w.approvals_needed} approvals ({w.policy})
      </span>
      {w.rejection_reason ? <p class="problem-text">Rejected: {w.rejection_reason}</p> : null}
      {w.can_decide && w.status === "requested" ? (
        <div class="actions">
          <Button
            kind="primary"
            busy={act.busy}
            onClick={() =>
              void act
                .run(() =>
                  call(
                    api.POST("/waivers/{waiverId}/approve", {
                      params: { path: { waiverId: w.id } },
                      body: {},
                    }),
                  ),
                )
                .then((r) => r && onChange())
            }
          >
            Approve
          </Button>
          <label>
            Reason to reject <input value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </label>
          <Button
            kind="danger"
            disabled={!reason}
            busy={act.busy}
            onClick={() =>
              void act
                .run(() =>
                  call(
                    api.POST("/waivers/{waiverId}/reject", {
                      params: { path: { waiverId: w.id } },
                      body: { reason },
                    }),
                  ),
                )
                .then((r) => r && onChange())
            }
          >
            Reject
          </Button>
        </div>
      ) : null}
      <ProblemBox error={act.error} />
    </li>
  );
}

function Waivers({ doc }: { doc: Schemas["SpecDoc"] }) {
  const waivers = useApi(
    () => call(api.GET("/docs/{docId}/waivers", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  return (
    <section aria-labelledby="waivers-h">
      <h2 id="waivers-h">Waivers</h2>
      <Show loaded={waivers} what="Waivers">
        {(w) =>
          w.items.length === 0 ? (
            <p class="muted">No waivers.</p>
          ) : (
            <ul class="plain">
              {w.items.map((x) => (
                <WaiverItem key={x.id} w={x} onChange={waivers.reload} />
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function Status({ doc }: { doc: Schemas["SpecDoc"] }) {
  const status = useApi(
    () => call(api.GET("/docs/{docId}/status", { params: { path: { docId: doc.id } } })),
    [doc.id],
  );
  const approve = useAction();
  return (
    <section aria-labelledby="status-h">
      <h2 id="status-h">Review status and approval</h2>
      <Show loaded={status} what="Review status">
        {(s) => (
          <>
            <p>
              <span class="tag">{s.status.replace("_", " ")}</span> author {s.author}; reviewers:{" "}
              {s.reviewers.map((r) => r.name).join(", ") || "none"}
            </p>
            <ul class="plain">
              {s.approvals.map((a) => (
                <li key={a.by + a.version_id}>
                  Approved by {a.by} at version {a.version_number}, {when(a.approved_at)}
                </li>
              ))}
            </ul>
            {s.can_approve ? (
              <Button
                kind="primary"
                busy={approve.busy}
                onClick={() =>
                  void approve
                    .run(() =>
                      call(
                        api.POST("/docs/{docId}/approve", {
                          params: { path: { docId: doc.id } },
                          body: { base_version: doc.current_version.id },
                        }),
                      ),
                    )
                    .then((r) => r && status.reload())
                }
              >
                Approve version {doc.current_version.number}
              </Button>
            ) : null}
            <ProblemBox error={approve.error} />
          </>
        )}
      </Show>
    </section>
  );
}

export function CollabPage({ docId }: { docId: string }) {
  const doc = useDoc(docId);
  return (
    <DocShell docId={docId} tab="collab" doc={doc}>
      {(d) => (
        <>
          <Status doc={d} />
          <Threads doc={d} />
          <Waivers doc={d} />
        </>
      )}
    </DocShell>
  );
}

export function InboxPage() {
  const inbox = useApi(() => call(api.GET("/inbox", {})), []);
  const seen = useAction();
  return (
    <section aria-labelledby="inbox-h">
      <h1 id="inbox-h">Inbox</h1>
      <Show loaded={inbox} what="Inbox">
        {(i) => (
          <>
            <p>
              {i.unseen} new{" "}
              <Button
                busy={seen.busy}
                onClick={() =>
                  void seen.run(() => call(api.POST("/inbox/seen", {}))).then(() => inbox.reload())
                }
              >
                Mark all seen
              </Button>
            </p>
            <ProblemBox error={seen.error} />
            <ul class="plain">
              {i.items.map((item) => (
                <li key={item.id} class={item.read ? "read" : "unread"}>
                  <span class="tag">{item.kind}</span>{" "}
                  {item.doc_id ? (
                    <Link href={`/docs/${item.doc_id}/collab`}>{item.sentence}</Link>
                  ) : (
                    item.sentence
                  )}{" "}
                  <span class="muted">{when(item.created_at)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </Show>
    </section>
  );
}
