/** The header every page of one doc shares: its title, state, next action and the tabs. */
import type { ComponentChildren } from "preact";
import { api, call, type Schemas } from "../api/client";
import { Link } from "../router";
import { DocTabs, Show, StateChip, useApi, type Loaded } from "../ui";

export function useDoc(docId: string): Loaded<Schemas["SpecDoc"]> {
  return useApi(() => call(api.GET("/docs/{docId}", { params: { path: { docId } } })), [docId]);
}

export function DocShell(props: {
  docId: string;
  tab: string;
  doc: Loaded<Schemas["SpecDoc"]>;
  children: (doc: Schemas["SpecDoc"]) => ComponentChildren;
}) {
  return (
    <Show loaded={props.doc} what="Doc">
      {(doc) => (
        <article class="doc-page">
          <p class="crumbs">
            <Link href="/">Bundles</Link> / <span>{doc.slug}</span>
          </p>
          <h1>
            {doc.title} <StateChip state={doc.verdict?.result ?? "not_reviewed"} />
          </h1>
          <p class="muted">
            <span class="tag">{doc.profile_key}</span> <code>{doc.path}</code>, version{" "}
            {doc.current_version.number}
            {doc.status ? `, ${doc.status.replace("_", " ")}` : ""}
          </p>
          {doc.next_action ? <p class="next-action">Next: {doc.next_action.sentence}</p> : null}
          <DocTabs docId={props.docId} active={props.tab} />
          {props.children(doc)}
        </article>
      )}
    </Show>
  );
}
