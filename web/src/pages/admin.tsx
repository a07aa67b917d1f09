/**
 * `/admin` (admins): model backends and roles with a test call, this month's token budget,
 * workspace settings, invites and reset links, MCP connections with their tools, and the
 * repohost token. Secrets are write-only: only their last 4 characters ever show.
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link } from "../router";
import { Button, ProblemBox, Show, useAction, useApi, when } from "../ui";

function TestCall({ backend, model }: { backend: Schemas["Backend"]; model: string }) {
  const act = useAction();
  const [result, setResult] = useState<Schemas["BackendTestResult"]>();
  return (
    <span>
      <Button
        busy={act.busy}
        disabled={!model}
        label={`Test ${backend.name} with ${model || "a model"}`}
        onClick={() =>
          void act
            .run(() =>
              call(
                api.POST("/admin/backends/{backendId}/test", {
                  params: { path: { backendId: backend.id } },
                  body: { model },
                }),
              ),
            )
            .then((r) => r && setResult(r))
        }
      >
        Test call
      </Button>
      {result ? (
        <span role="status" class={result.ok ? "ok-text" : "problem-text"}>
          {" "}
          {result.ok
            ? `answered in ${result.duration_ms} ms: ${result.answer ?? ""}`
            : `failed: ${result.error ?? ""}`}
        </span>
      ) : null}
      <ProblemBox error={act.error} />
    </span>
  );
}

function Models() {
  const backends = useApi(() => call(api.GET("/admin/backends", {})), []);
  const roles = useApi(() => call(api.GET("/admin/roles", {})), []);
  return (
    <section aria-labelledby="models-h">
      <h2 id="models-h">Model backends and roles</h2>
      <Show loaded={backends} what="Backends">
        {(b) =>
          b.items.length === 0 ? (
            <p class="muted">No backend yet: full reviews need one (POST /admin/backends).</p>
          ) : (
            <div class="scroll" tabIndex={0} role="region" aria-label="Scrollable table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Backend</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Secret</th>
                    <th scope="col">Roles</th>
                  </tr>
                </thead>
                <tbody>
                  {b.items.map((x) => (
                    <tr key={x.id}>
                      <td>{x.name}</td>
                      <td>{x.kind}</td>
                      <td>{x.has_secret ? `…${x.secret_last4}` : "none"}</td>
                      <td>{x.roles.join(", ")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <h3>Roles</h3>
      <Show loaded={roles} what="Roles">
        {(r) => (
          <ul class="plain">
            {r.items.map((role) => {
              const backend = backends.data?.items.find((b) => b.id === role.backend_id);
              return (
                <li key={role.role}>
                  <strong>{role.role}</strong>: {backend?.name ?? "no backend"}{" "}
                  {role.model ? <code>{role.model}</code> : null}{" "}
                  {backend ? <TestCall backend={backend} model={role.model ?? ""} /> : null}
                </li>
              );
            })}
          </ul>
        )}
      </Show>
    </section>
  );
}

function BudgetCard() {
  const budget = useApi(() => call(api.GET("/admin/budget", {})), []);
  const [limit, setLimit] = useState("");
  const act = useAction();
  return (
    <section aria-labelledby="budget-h">
      <h2 id="budget-h">Token budget</h2>
      <Show loaded={budget} what="Budget">
        {(b) => (
          <p>
            {b.month}: {b.used_tokens.toLocaleString()} tokens used
            {b.limit_tokens !== null ? ` of ${b.limit_tokens.toLocaleString()}` : " (no limit)"}
            {b.limit_tokens ? (
              <meter min={0} max={b.limit_tokens} value={b.used_tokens} aria-label="Budget used" />
            ) : null}
          </p>
        )}
      </Show>
      <label>
        Monthly limit in tokens (empty: no limit){" "}
        <input inputMode="numeric" value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
      </label>
      <Button
        busy={act.busy}
        onClick={() =>
          void act
            .run(() =>
              call(api.PUT("/admin/budget", { body: { limit_tokens: limit.trim() ? Number(limit) : null } })),
            )
            .then((r) => r && budget.reload())
        }
      >
        Set the limit
      </Button>
      <ProblemBox error={act.error} />
    </section>
  );
}

function SettingsForm() {
  const settings = useApi(() => call(api.GET("/admin/settings", {})), []);
  const [draft, setDraft] = useState<Schemas["Settings"]>();
  const act = useAction();
  const s = draft ?? settings.data;
  const num = (key: "max_file_mb" | "max_bundle_mb" | "invite_ttl_days" | "parallel_calls", label: string) =>
    s ? (
      <label>
        {label}{" "}
        <input
          type="number"
          value={s[key]}
          onInput={(e) => setDraft({ ...s, [key]: Number(e.currentTarget.value) })}
        />
      </label>
    ) : null;
  return (
    <section aria-labelledby="settings-h">
      <h2 id="settings-h">Settings</h2>
      <Show loaded={settings} what="Settings">
        {() => (
          <form
            class="grid-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (s)
                void act
                  .run(() => call(api.PUT("/admin/settings", { body: s })))
                  .then((r) => r && setDraft(r));
            }}
          >
            {num("max_file_mb", "Largest file (MB)")}
            {num("max_bundle_mb", "Largest bundle (MB)")}
            {num("invite_ttl_days", "Invite lifetime (days)")}
            {num("parallel_calls", "Model calls at a time")}
            <label>
              <input
                type="checkbox"
                checked={s?.resolve_sources !== false}
                onChange={(e) => s && setDraft({ ...s, resolve_sources: e.currentTarget.checked })}
              />{" "}
              Read the metadata of grounding sources
            </label>
            <button type="submit" class="btn btn-primary" disabled={act.busy}>
              Save settings
            </button>
          </form>
        )}
      </Show>
      <ProblemBox error={act.error} />
    </section>
  );
}

function Invites() {
  const invites = useApi(() => call(api.GET("/admin/invites", {})), []);
  const [role, setRole] = useState("member");
  const [made, setMade] = useState<string>();
  const act = useAction();
  return (
    <section aria-labelledby="invites-h">
      <h2 id="invites-h">Invites</h2>
      <label>
        Role{" "}
        <select aria-label="Role of the invite" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
          <option value="admin">admin</option>
          <option value="member">member</option>
          <option value="viewer">viewer</option>
        </select>
      </label>{" "}
      <Button
        kind="primary"
        busy={act.busy}
        onClick={() =>
          void act
            .run(() => call(api.POST("/admin/invites", { body: { role } })))
            .then((r) => {
              if (r) {
                setMade(r.url);
                invites.reload();
              }
            })
        }
      >
        Make an invite link
      </Button>
      {made ? (
        <p role="status">
          Copy it now, it is shown once: <code class="secret-url">{made}</code>
        </p>
      ) : null}
      <ProblemBox error={act.error} />
      <Show loaded={invites} what="Invites">
        {(l) => (
          <ul class="plain">
            {l.items.map((i) => (
              <li key={i.id}>
                <span class="tag">{i.state}</span> {i.role}, made by {i.created_by} {when(i.created_at)},
                expires {when(i.expires_at)}{" "}
                {i.state === "unused" ? (
                  <Button
                    kind="danger"
                    onClick={() =>
                      void act
                        .run(() =>
                          call(
                            api.POST("/admin/invites/{inviteId}/revoke", {
                              params: { path: { inviteId: i.id } },
                            }),
                          ),
                        )
                        .then(() => invites.reload())
                    }
                  >
                    Revoke
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Show>
      <ResetLinks />
    </section>
  );
}

function ResetLinks() {
  const people = useApi(() => call(api.GET("/people", {})), []);
  const [user, setUser] = useState("");
  const [url, setUrl] = useState<string>();
  const act = useAction();
  if (!people.data || people.data.items.length === 0) return null;
  return (
    <div>
      <h3>Password reset link</h3>
      <label>
        Person{" "}
        <select
          aria-label="Person whose password to reset"
          value={user}
          onChange={(e) => setUser(e.currentTarget.value)}
        >
          <option value="">pick one</option>
          {people.data.items.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>{" "}
      <Button
        disabled={!user}
        busy={act.busy}
        onClick={() =>
          void act
            .run(() => call(api.POST("/admin/reset-links", { body: { user_id: user } })))
            .then((r) => r && setUrl(r.url))
        }
      >
        Make a reset link
      </Button>
      {url ? (
        <p role="status">
          Shown once: <code class="secret-url">{url}</code>
        </p>
      ) : null}
      <ProblemBox error={act.error} />
    </div>
  );
}

function McpTools({ id }: { id: string }) {
  const tools = useApi(
    () => call(api.GET("/admin/mcp/{connectionId}/tools", { params: { path: { connectionId: id } } })),
    [id],
  );
  return (
    <Show loaded={tools} what="Tools">
      {(t) => (
        <ul>
          {t.items.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code> {tool.read_only ? <span class="tag">read-only</span> : null}
              {tool.destructive ? <span class="tag blocking">destructive</span> : null} {tool.description}
            </li>
          ))}
        </ul>
      )}
    </Show>
  );
}

function Mcp() {
  const list = useApi(() => call(api.GET("/admin/mcp", {})), []);
  const [open, setOpen] = useState<string>();
  return (
    <section aria-labelledby="mcp-h">
      <h2 id="mcp-h">MCP connections</h2>
      <Show loaded={list} what="MCP connections">
        {(l) =>
          l.items.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <ul class="plain">
              {l.items.map((c) => (
                <li key={c.id}>
                  <strong>{c.name}</strong> <span class="tag">{c.transport}</span>{" "}
                  {c.is_search ? <span class="tag">search</span> : null}{" "}
                  {c.has_secret ? <span class="muted">secret …{c.secret_last4}</span> : null}{" "}
                  <Button onClick={() => setOpen(open === c.id ? undefined : c.id)}>
                    {open === c.id ? "Hide tools" : "List tools"}
                  </Button>
                  {open === c.id ? <McpTools id={c.id} /> : null}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function Repohost() {
  const state = useApi(() => call(api.GET("/admin/repohost", {})), []);
  const [token, setToken] = useState("");
  const act = useAction();
  return (
    <section aria-labelledby="repohost-h">
      <h2 id="repohost-h">Repohost token</h2>
      <Show loaded={state} what="Repohost token">
        {(r) => (
          <p>
            {r.configured
              ? `Set (…${r.token_last4 ?? ""}${r.login ? `, account ${r.login}` : ""})`
              : "Not set"}
            ; API <code>{r.api_url}</code>
          </p>
        )}
      </Show>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act
            .run(() => call(api.PUT("/admin/repohost", { body: { token } })))
            .then((r) => {
              if (r) {
                setToken("");
                state.reload();
              }
            });
        }}
      >
        <label>
          New token{" "}
          <input
            type="password"
            autoComplete="off"
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        </label>{" "}
        <button type="submit" class="btn btn-primary" disabled={!token || act.busy}>
          Save the token
        </button>
      </form>
      <ProblemBox error={act.error} what="Repohost token" />
    </section>
  );
}

export function AdminPage() {
  return (
    <article>
      <h1>Administration</h1>
      <p>
        <Link href="/profiles">Profiles</Link> (YAML editor)
      </p>
      <Models />
      <BudgetCard />
      <SettingsForm />
      <Invites />
      <Mcp />
      <Repohost />
    </article>
  );
}
