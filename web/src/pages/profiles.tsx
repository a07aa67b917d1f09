/**
 * `/profiles`: every profile; `/profiles/:key` and `/docs/:docId/profile`: one profile, its
 * checks, and its YAML in an editor that shows each validation error at its line
 * (PUT /profiles/{key} answers 400 `profile_invalid` with `errors[].line`). The list offers
 * admins and maintainers to learn a profile from existing specs (POST /profiles/infer).
 */
import { useContext, useMemo, useState } from "preact/hooks";
import { api, call, type ApiProblem, type Schemas } from "../api/client";
import { Link } from "../router";
import { SessionContext, isAdmin } from "../session";
import { Button, ProblemBox, Show, useAction, useApi, when } from "../ui";
import { DocShell, useDoc } from "./doc-shell";

interface Check {
  slug: string;
  level?: string;
  kind?: string;
  description?: string;
}

/** The checks as the YAML lists them (`- slug:` items under `checks:`), for reading; the server validates. */
export function checksOf(yaml: string): Check[] {
  const out: Check[] = [];
  let inChecks = false;
  let current: Check | undefined;
  for (const line of yaml.split(/\r?\n/)) {
    if (/^checks:\s*$/.test(line)) {
      inChecks = true;
      continue;
    }
    if (inChecks && /^\S/.test(line)) inChecks = false;
    if (!inChecks) continue;
    const item = /^\s*-\s+slug:\s*(.+)$/.exec(line);
    if (item) {
      current = { slug: unquote(item[1]!) };
      out.push(current);
      continue;
    }
    const field = /^\s+(level|kind|description):\s*(.+)$/.exec(line);
    if (current && field) current[field[1] as "level" | "kind" | "description"] = unquote(field[2]!);
  }
  return out;
}

const unquote = (s: string) => s.trim().replace(/^["'](.*)["']$/, "$1");

interface LineError {
  line?: number;
  column?: number;
  message: string;
  field?: string;
}

function YamlEditor({ profile, onSaved }: { profile: Schemas["Profile"]; onSaved: () => void }) {
  const [yaml, setYaml] = useState(profile.yaml);
  const [message, setMessage] = useState("");
  const save = useAction();
  const errors = useMemo(() => (save.error?.problem.errors ?? []) as LineError[], [save.error]);
  const bad = new Set(errors.map((e) => e.line).filter((l): l is number => typeof l === "number"));
  const lines = yaml.split("\n");
  return (
    <section aria-labelledby="yaml-h">
      <h2 id="yaml-h">YAML</h2>
      <div class="editor">
        <pre class="gutter" aria-hidden="true">
          {lines.map((_, i) => (
            <span key={i} class={bad.has(i + 1) ? "bad" : undefined}>
              {i + 1}
              {"\n"}
            </span>
          ))}
        </pre>
        <textarea
          aria-label={`YAML of the profile ${profile.key}`}
          spellcheck={false}
          value={yaml}
          rows={Math.min(40, lines.length + 2)}
          onInput={(e) => setYaml(e.currentTarget.value)}
          aria-invalid={errors.length > 0 ? "true" : undefined}
          aria-describedby={errors.length > 0 ? "yaml-errors" : undefined}
        />
      </div>
      {errors.length > 0 ? (
        <ul id="yaml-errors" class="plain problem-text" role="alert">
          {errors.map((e, i) => (
            <li key={i}>
              {e.line !== undefined
                ? `Line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ""}: `
                : ""}
              {e.message}
            </li>
          ))}
        </ul>
      ) : (
        <ProblemBox error={save.error} />
      )}
      <label>
        What changed <input value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      </label>
      <Button
        kind="primary"
        busy={save.busy}
        onClick={() =>
          void save
            .run(() =>
              call(
                api.PUT("/profiles/{key}", {
                  params: { path: { key: profile.key } },
                  body: {
                    yaml,
                    template: profile.template,
                    message,
                    base_version: profile.current_version.number,
                  },
                }),
              ),
            )
            .then((r) => r && onSaved())
        }
      >
        Save as a new version
      </Button>
    </section>
  );
}

function ProfileView({ profileKey }: { profileKey: string }) {
  const profile = useApi(
    () => call(api.GET("/profiles/{key}", { params: { path: { key: profileKey } } })),
    [profileKey],
  );
  return (
    <Show loaded={profile} what="Profile">
      {(p) => (
        <>
          <h2>
            {p.title} <span class="tag">{p.key}</span> {p.builtin ? <span class="tag">built-in</span> : null}
          </h2>
          <p class="muted">
            Version {p.current_version.number}, {when(p.current_version.created_at)}; {p.bundles} bundles;
            maintainers: {p.maintainers.join(", ") || "none"}
          </p>
          <h3>Checks</h3>
          <div class="scroll" tabIndex={0} role="region" aria-label="Scrollable table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Level</th>
                  <th scope="col">Kind</th>
                  <th scope="col">What it asks</th>
                </tr>
              </thead>
              <tbody>
                {checksOf(p.yaml).map((c) => (
                  <tr key={c.slug}>
                    <td>
                      <code>{c.slug}</code>
                    </td>
                    <td>{c.level}</td>
                    <td>{c.kind}</td>
                    <td>{c.description}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <YamlEditor key={p.current_version.number} profile={p} onSaved={profile.reload} />
        </>
      )}
    </Show>
  );
}

function DocProfile({ docId }: { docId: string }) {
  const doc = useDoc(docId);
  return (
    <DocShell docId={docId} tab="profile" doc={doc}>
      {(d) => <ProfileView profileKey={d.profile_key} />}
    </DocShell>
  );
}

export function ProfilePage(props: { docId?: string; profileKey?: string }) {
  if (props.docId) return <DocProfile docId={props.docId} />;
  return (
    <article>
      <p class="crumbs">
        <Link href="/profiles">Profiles</Link>
      </p>
      <ProfileView profileKey={props.profileKey ?? ""} />
    </article>
  );
}

type Inferred = Schemas["InferredProfile"];

const KIND_WORDS: Record<string, string> = {
  "design-section": "design section",
  section: "section",
  metadata: "metadata",
  "id-pattern": "ID pattern",
  "link-pattern": "link pattern",
};

const KEY_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** A link that downloads `text` as a file (a data: URL, so nothing is kept in memory after). */
function Download({
  name,
  text,
  type,
  children,
}: {
  name: string;
  text: string;
  type: string;
  children: string;
}) {
  return (
    <a class="btn btn-plain" download={name} href={`data:${type};charset=utf-8,${encodeURIComponent(text)}`}>
      {children}
    </a>
  );
}

/**
 * Admins, and in hosted mode members who maintain a profile (`POST /profiles/infer` needs
 * `maintain`): whether the caller maintains one is read from the profiles' maintainers.
 */
function useMayLearn(profiles: Schemas["ProfileSummary"][] | undefined): boolean {
  const { me } = useContext(SessionContext);
  const member = me?.mode === "hosted" && me.user?.role === "member" && !me.guest;
  const maintains = useApi(
    () =>
      member && profiles && me.user
        ? Promise.all(
            profiles.map((p) => call(api.GET("/profiles/{key}", { params: { path: { key: p.key } } }))),
          ).then((all) => all.some((p) => p.maintainers.includes(me.user!.id)))
        : Promise.resolve(false),
    [member, profiles?.length, me?.user?.id],
  );
  return isAdmin(me) || maintains.data === true;
}

/**
 * "Learn a profile from existing specs": a folder of the served tree (local mode) or a
 * repohost source (hosted mode) through POST /profiles/infer; the learned elements with
 * their shares, the docs that did not fit, the YAML; Save (local mode, and admins in
 * hosted mode) or download the files.
 */
function LearnProfile({ profiles, onSaved }: { profiles: Schemas["ProfileSummary"][]; onSaved: () => void }) {
  const { me } = useContext(SessionContext);
  const hosted = me?.mode === "hosted";
  const sources = useApi(
    () => (hosted ? call(api.GET("/repohost/sources", {})) : Promise.resolve(undefined)),
    [hosted],
  );
  const [folder, setFolder] = useState("");
  const [sourceId, setSourceId] = useState("");
  const [key, setKey] = useState("");
  const [parent, setParent] = useState("");
  const [title, setTitle] = useState("");
  const [result, setResult] = useState<Inferred>();
  const learn = useAction();
  const save = useAction();
  const source = sourceId || sources.data?.items[0]?.id || "";
  const keyBad = key !== "" && !KEY_PATTERN.test(key);
  const mayCreate = !hosted || isAdmin(me);
  const body = (saveIt: boolean) => ({
    key,
    ...(hosted ? { source_id: source } : { folder: folder.trim() || "." }),
    ...(parent ? { extends: parent } : {}),
    ...(title.trim() ? { title: title.trim() } : {}),
    ...(saveIt ? { save: true } : {}),
  });
  const run = (saveIt: boolean) => {
    const act = saveIt ? save : learn;
    if (!saveIt) setResult(undefined);
    void act
      .run(() => call(api.POST("/profiles/infer", { body: body(saveIt) })))
      .then((r) => {
        if (!r) return;
        setResult(r);
        if (r.saved) onSaved();
      });
  };
  const builtins = profiles.filter((p) => p.builtin);
  return (
    <section aria-labelledby="learn-h" class="card">
      <h2 id="learn-h">Learn a profile from existing specs</h2>
      <p class="muted">
        Point at the docs your team already accepted: the sections they write, where the design lives, the
        metadata they carry and their ID and link patterns become a profile, with levels the docs themselves
        pass.
      </p>
      <form
        class="grid-form learn-form"
        onSubmit={(e) => {
          e.preventDefault();
          run(false);
        }}
      >
        {hosted ? (
          <Show loaded={sources} what="Sources">
            {(l) =>
              l && l.items.length > 0 ? (
                <label>
                  Source
                  <select value={source} onChange={(e) => setSourceId(e.currentTarget.value)}>
                    {l.items.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.repo}
                        {s.path ? `/${s.path}` : ""} ({s.branch})
                      </option>
                    ))}
                  </select>
                </label>
              ) : (
                <p class="muted">No repohost source yet: an admin adds one on the Admin page.</p>
              )
            }
          </Show>
        ) : (
          <label>
            Folder of the served tree
            <input
              value={folder}
              placeholder="proposals"
              aria-describedby="learn-folder-hint"
              onInput={(e) => setFolder(e.currentTarget.value)}
            />
            <span id="learn-folder-hint" class="muted">
              relative to the served folder; empty for all of it
            </span>
          </label>
        )}
        <label>
          Key of the new profile
          <input
            value={key}
            placeholder="team-proposal"
            required
            aria-invalid={keyBad ? "true" : undefined}
            aria-describedby="learn-key-hint"
            onInput={(e) => setKey(e.currentTarget.value.trim())}
          />
          <span id="learn-key-hint" class={keyBad ? "problem-text" : "muted"}>
            lowercase words joined by “-”
          </span>
        </label>
        <label>
          Extends
          <select value={parent} onChange={(e) => setParent(e.currentTarget.value)}>
            <option value="">nothing: a profile of its own</option>
            {builtins.map((p) => (
              <option key={p.key} value={p.key}>
                {p.title} ({p.key})
              </option>
            ))}
          </select>
        </label>
        <label>
          Title (optional)
          <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <div>
          <button
            type="submit"
            class="btn btn-primary"
            disabled={learn.busy || key === "" || keyBad || (hosted && source === "")}
            aria-busy={learn.busy ? "true" : undefined}
          >
            {learn.busy ? <span class="spinner" aria-hidden="true" /> : null}
            Learn
          </button>
        </div>
      </form>
      <ProblemBox error={learn.error} />
      {result ? (
        <LearnedProfile
          result={result}
          canSave={mayCreate}
          saving={save.busy}
          onSave={() => run(true)}
          error={save.error}
        />
      ) : null}
    </section>
  );
}

function LearnedProfile(props: {
  result: Inferred;
  canSave: boolean;
  saving: boolean;
  onSave: () => void;
  error?: ApiProblem;
}) {
  const r = props.result;
  const types = Object.entries(r.types);
  return (
    <div aria-labelledby="learned-h">
      <h3 id="learned-h">
        What was learned ({r.docs_read} markdown file{r.docs_read === 1 ? "" : "s"} read)
      </h3>
      <div class="scroll" tabIndex={0} role="region" aria-label="What was learned">
        <table>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Element</th>
              <th scope="col">Docs that have it</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {r.elements.map((e, i) => (
              <tr key={i}>
                <td>{KIND_WORDS[e.kind] ?? e.kind}</td>
                <td>{e.name}</td>
                <td>{Math.round(e.share * 100)}%</td>
                <td>{e.detail ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Docs that did not fit ({r.misfits.length})</h3>
      {r.misfits.length === 0 ? (
        <p class="muted">Every doc fit.</p>
      ) : (
        <ul class="plain" aria-label="Docs that did not fit">
          {r.misfits.map((m) => (
            <li key={m.path}>
              <code>{m.path}</code>: {m.why}
            </li>
          ))}
        </ul>
      )}
      {types.length > 0 ? (
        <p>
          Maps the docs with{" "}
          {types.map(([glob, k]) => (
            <code key={glob}>
              {glob}: {k}
            </code>
          ))}{" "}
          in <code>.spec-review/config.yaml</code>.
        </p>
      ) : null}
      <h3>profile.yaml</h3>
      <pre class="scroll learned-yaml" tabIndex={0} role="region" aria-label={`Learned YAML of ${r.key}`}>
        {r.profile_yaml}
      </pre>
      <p>
        {props.canSave && !r.saved ? (
          <Button kind="primary" busy={props.saving} onClick={props.onSave}>
            Save as profile {r.key}
          </Button>
        ) : null}{" "}
        <Download name="profile.yaml" type="text/yaml" text={r.profile_yaml}>
          Download profile.yaml
        </Download>{" "}
        <Download name="template.md" type="text/markdown" text={r.template}>
          Download template.md
        </Download>
      </p>
      <ProblemBox error={props.error} />
      {r.saved ? (
        <p class="notice" role="status">
          Saved: <Link href={`/profiles/${r.key}`}>profile {r.key}</Link>
          {r.written?.length ? <> (wrote {r.written.join(", ")})</> : null}.
        </p>
      ) : null}
    </div>
  );
}

export function ProfilesPage() {
  const list = useApi(() => call(api.GET("/profiles", {})), []);
  const mayLearn = useMayLearn(list.data?.items);
  return (
    <section aria-labelledby="profiles-h">
      <h1 id="profiles-h">Profiles</h1>
      <Show loaded={list} what="Profiles">
        {(l) => (
          <ul class="plain">
            {l.items.map((p) => (
              <li key={p.key}>
                <Link href={`/profiles/${p.key}`}>{p.title}</Link> <span class="tag">{p.key}</span>{" "}
                <span class="muted">
                  v{p.current_version.number}, {p.bundles} bundles
                </span>
              </li>
            ))}
          </ul>
        )}
      </Show>
      {mayLearn && list.data ? <LearnProfile profiles={list.data.items} onSaved={list.reload} /> : null}
    </section>
  );
}
