/**
 * `/admin` (admins): model backends and roles with a test call (admin-models.tsx), this
 * month's token budget, workspace settings, invites and reset links, MCP connections with
 * their tools (admin-mcp.tsx), and the repohost token. Secrets are write-only: only their
 * last 4 characters ever show.
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link } from "../router";
import { Button, ProblemBox, Show, useAction, useApi, when } from "../ui";
import { Mcp } from "./admin-mcp";
import { Models } from "./admin-models";

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
