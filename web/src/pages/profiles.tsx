/**
 * `/profiles`: every profile; `/profiles/:key` and `/docs/:docId/profile`: one profile, its
 * checks, and its YAML in an editor that shows each validation error at its line
 * (PUT /profiles/{key} answers 400 `profile_invalid` with `errors[].line`).
 */
import { useMemo, useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link } from "../router";
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

export function ProfilesPage() {
  const list = useApi(() => call(api.GET("/profiles", {})), []);
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
    </section>
  );
}
