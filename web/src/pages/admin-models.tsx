/**
 * The admin page's model section: backends (add, edit, delete with a confirm step) and
 * role assignments (backend, model, prices) with a test call. The API judges every field:
 * the forms send what the admin typed and show the problem's detail, so the rules live in
 * one place (server/models/service.ts). A secret is write-only: its input is a password
 * field that is emptied after saving, and only the last 4 characters ever come back.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Button, ProblemBox, Show, useAction, useApi, type Loaded } from "../ui";

type Backend = Schemas["Backend"];
type BackendBody = Schemas["BackendRequest"];
type Kind = BackendBody["kind"];
type Preset = NonNullable<BackendBody["preset"]>;

const KINDS: Kind[] = ["provider_1", "provider_2", "provider_3", "provider_4", "agent_cli"];
const PRESETS: Preset[] = ["agent_preset_1", "agent_preset_2", "agent_preset_3", "agent_preset_4", "custom"];

/** A textarea's lines, trimmed, blank ones dropped: a command's arguments, a list of names. */
export function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/**
 * A write-only secret: a password field (empty keeps the stored one, whose last 4
 * characters are all that is shown) and, when one is stored, a box to remove it.
 */
export function SecretField(p: {
  label: string;
  stored: string | null | undefined;
  secret: string;
  setSecret: (v: string) => void;
  remove: boolean;
  setRemove: (v: boolean) => void;
}) {
  const stored = p.stored !== undefined;
  return (
    <>
      <label>
        {p.label}
        {stored ? ` (empty: keep …${p.stored ?? ""})` : " (optional)"}
        <input
          type="password"
          autoComplete="new-password"
          value={p.secret}
          disabled={p.remove}
          onInput={(e) => p.setSecret(e.currentTarget.value)}
        />
      </label>
      {stored ? (
        <label>
          <input type="checkbox" checked={p.remove} onChange={(e) => p.setRemove(e.currentTarget.checked)} />{" "}
          Remove the stored secret
        </label>
      ) : null}
    </>
  );
}

/**
 * Asks once more before a destructive action. Focus moves to "Keep it", so a second Enter
 * never deletes by accident; "Yes, delete" is one Shift+Tab away.
 */
export function ConfirmDelete({
  what,
  busy,
  onConfirm,
}: {
  what: string;
  busy?: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const keep = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <Button kind="danger" label={`Delete ${what}`} onClick={() => setAsking(true)}>
        Delete
      </Button>
    );
  return (
    <span class="confirm" role="group" aria-label={`Confirm deleting ${what}`}>
      Delete {what}?{" "}
      <Button kind="danger" busy={busy} onClick={onConfirm}>
        Yes, delete
      </Button>{" "}
      <button type="button" class="btn btn-plain" ref={keep} onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}

/** The heading of a form opened by a button: it takes the focus, so the keyboard lands on the form. */
export function FocusedHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <h3 tabIndex={-1} ref={ref}>
      {children}
    </h3>
  );
}

function TestCall({ backend, model }: { backend: Backend; model: string }) {
  const act = useAction();
  const [result, setResult] = useState<Schemas["BackendTestResult"]>();
  return (
    <span>
      <Button
        busy={act.busy}
        disabled={!model}
        label={`Test call: ${backend.name} with ${model || "a model"}`}
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

/** Add a backend (no `initial`) or change one (PUT: the whole body; a blank secret keeps the stored one). */
function BackendForm({
  initial,
  presets,
  onSaved,
  onCancel,
}: {
  initial?: Backend;
  presets?: Schemas["AgentPresetInfo"][];
  onSaved: (b: Backend) => void;
  onCancel?: () => void;
}) {
  const [kind, setKind] = useState<Kind>(initial?.kind ?? "provider_1");
  const [name, setName] = useState(initial?.name ?? "");
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? "");
  const [preset, setPreset] = useState<Preset>(initial?.preset ?? "agent_preset_1");
  const [command, setCommand] = useState((initial?.command ?? []).join("\n"));
  const [promptVia, setPromptVia] = useState<"stdin" | "file">(initial?.prompt_via ?? "stdin");
  const [secret, setSecret] = useState("");
  const [removeSecret, setRemoveSecret] = useState(false);
  const act = useAction();
  const agent = kind === "agent_cli";
  const presetName = (p: Preset) => {
    const info = presets?.find((x) => x.preset === p);
    return info ? `${info.name}${info.installed ? "" : " (not installed here)"}` : p;
  };

  const body = (): BackendBody => {
    const b: BackendBody = { kind, name };
    if (agent) {
      b.preset = preset;
      if (preset === "custom") {
        b.command = lines(command);
        b.prompt_via = promptVia;
      }
    } else if (baseUrl.trim()) b.base_url = baseUrl.trim();
    if (removeSecret) b.secret = "";
    else if (secret) b.secret = secret;
    // On a new backend an empty secret field means none; on a change it keeps the stored one.
    return b;
  };

  return (
    <form
      class="grid-form admin-form"
      aria-label={initial ? `Change backend ${initial.name}` : "Add a model backend"}
      onSubmit={(e) => {
        e.preventDefault();
        void act
          .run(() =>
            call(
              initial
                ? api.PUT("/admin/backends/{backendId}", {
                    params: { path: { backendId: initial.id } },
                    body: body(),
                  })
                : api.POST("/admin/backends", { body: body() }),
            ),
          )
          .then((r) => {
            if (!r) return;
            setSecret("");
            setRemoveSecret(false);
            if (!initial) {
              setName("");
              setBaseUrl("");
              setCommand("");
            }
            onSaved(r);
          });
      }}
    >
      <label>
        Kind
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k === "agent_cli" ? "agent_cli (a CLI on this machine)" : k}
            </option>
          ))}
        </select>
      </label>
      <label>
        Name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      {agent ? (
        <>
          <label>
            Agent preset
            <select value={preset} onChange={(e) => setPreset(e.currentTarget.value as Preset)}>
              {PRESETS.map((p) => (
                <option key={p} value={p}>
                  {p === "custom" ? "custom (my own command)" : presetName(p)}
                </option>
              ))}
            </select>
          </label>
          {preset === "custom" ? (
            <>
              <label>
                Command, one argument a line ({"{model}"}, {"{schema}"}, {"{prompt_file}"} are replaced)
                <textarea
                  rows={3}
                  value={command}
                  spellcheck={false}
                  onInput={(e) => setCommand(e.currentTarget.value)}
                />
              </label>
              <label>
                Prompt given by
                <select
                  value={promptVia}
                  onChange={(e) => setPromptVia(e.currentTarget.value as "stdin" | "file")}
                >
                  <option value="stdin">stdin</option>
                  <option value="file">a file ({"{prompt_file}"})</option>
                </select>
              </label>
            </>
          ) : null}
        </>
      ) : (
        <label>
          Base URL (empty: the provider's own address)
          <input
            inputMode="url"
            spellcheck={false}
            value={baseUrl}
            placeholder="http://localhost:11434/v1"
            onInput={(e) => setBaseUrl(e.currentTarget.value)}
          />
        </label>
      )}
      <SecretField
        label={agent ? "Secret, handed to the CLI in its environment" : "API key"}
        stored={initial?.has_secret ? initial.secret_last4 : undefined}
        secret={secret}
        setSecret={setSecret}
        remove={removeSecret}
        setRemove={setRemoveSecret}
      />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={act.busy} aria-busy={act.busy || undefined}>
          {initial ? "Save the backend" : "Add the backend"}
        </button>{" "}
        {onCancel ? <Button onClick={onCancel}>Cancel</Button> : null}
      </div>
      <ProblemBox error={act.error} />
    </form>
  );
}

function BackendRow({
  backend,
  onEdit,
  onChanged,
}: {
  backend: Backend;
  onEdit: () => void;
  onChanged: () => void;
}) {
  const act = useAction();
  const where =
    backend.kind === "agent_cli"
      ? backend.preset === "custom"
        ? (backend.command ?? []).join(" ")
        : (backend.preset ?? "")
      : (backend.base_url ?? "provider default");
  return (
    <tr>
      <td>{backend.name}</td>
      <td>{backend.kind}</td>
      <td>
        <code>{where}</code>
      </td>
      <td class="secret-cell">{backend.has_secret ? `…${backend.secret_last4}` : "none"}</td>
      <td>{backend.roles.join(", ")}</td>
      <td class="actions">
        <Button label={`Edit backend ${backend.name}`} onClick={onEdit}>
          Edit
        </Button>{" "}
        <ConfirmDelete
          what={`backend ${backend.name}`}
          busy={act.busy}
          onConfirm={() =>
            void act
              .run(() =>
                call(
                  api.DELETE("/admin/backends/{backendId}", {
                    params: { path: { backendId: backend.id } },
                  }),
                ),
              )
              .then(() => onChanged())
          }
        />
        <ProblemBox error={act.error} />
      </td>
    </tr>
  );
}

function priceText(value: number | undefined): string {
  return value === undefined ? "" : String(value);
}

/** One role's assignment: backend, model and optional prices; the test call uses what is saved. */
function RoleForm({
  role,
  backends,
  onChanged,
}: {
  role: Schemas["RoleAssignment"];
  backends: Backend[];
  onChanged: () => void;
}) {
  const [backendId, setBackendId] = useState(role.backend_id ?? "");
  const [model, setModel] = useState(role.model ?? "");
  const [priceIn, setPriceIn] = useState(priceText(role.price_in_per_mtok));
  const [priceOut, setPriceOut] = useState(priceText(role.price_out_per_mtok));
  const act = useAction();
  const saved = backends.find((b) => b.id === role.backend_id);
  const body = (): Schemas["RoleAssignmentRequest"] => {
    const b: Schemas["RoleAssignmentRequest"] = { backend_id: backendId, model: model.trim() };
    if (priceIn.trim()) b.price_in_per_mtok = Number(priceIn);
    if (priceOut.trim()) b.price_out_per_mtok = Number(priceOut);
    return b;
  };
  return (
    <form
      class="role-form"
      onSubmit={(e) => {
        e.preventDefault();
        void act
          .run(() =>
            call(api.PUT("/admin/roles/{role}", { params: { path: { role: role.role } }, body: body() })),
          )
          .then((r) => r && onChanged());
      }}
    >
      <fieldset>
        <legend>{role.role}</legend>
        <p class="role-now">
          Now: {saved ? saved.name : "no backend"} {role.model ? <code>{role.model}</code> : null}
          {role.price_in_per_mtok !== undefined || role.price_out_per_mtok !== undefined
            ? ` (per Mtok: in ${priceText(role.price_in_per_mtok) || "?"}, out ${priceText(role.price_out_per_mtok) || "?"})`
            : ""}{" "}
          {saved ? <TestCall backend={saved} model={role.model ?? ""} /> : null}
        </p>
        <div class="role-fields">
          <label>
            Backend
            <select value={backendId} onChange={(e) => setBackendId(e.currentTarget.value)}>
              <option value="">pick one</option>
              {backends.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.name} ({b.kind})
                </option>
              ))}
            </select>
          </label>
          <label>
            Model
            <input value={model} spellcheck={false} onInput={(e) => setModel(e.currentTarget.value)} />
          </label>
          <label>
            Input price per Mtok (optional)
            <input
              type="number"
              min={0}
              step="any"
              value={priceIn}
              onInput={(e) => setPriceIn(e.currentTarget.value)}
            />
          </label>
          <label>
            Output price per Mtok (optional)
            <input
              type="number"
              min={0}
              step="any"
              value={priceOut}
              onInput={(e) => setPriceOut(e.currentTarget.value)}
            />
          </label>
        </div>
        <button type="submit" class="btn btn-primary" disabled={act.busy} aria-busy={act.busy || undefined}>
          Assign {role.role}
        </button>{" "}
        {role.backend_id ? (
          <Button
            label={`Unassign ${role.role}`}
            busy={act.busy}
            onClick={() =>
              void act
                .run(() => call(api.DELETE("/admin/roles/{role}", { params: { path: { role: role.role } } })))
                .then(() => {
                  setBackendId("");
                  setModel("");
                  setPriceIn("");
                  setPriceOut("");
                  onChanged();
                })
            }
          >
            Unassign
          </Button>
        ) : null}
        <ProblemBox error={act.error} />
      </fieldset>
    </form>
  );
}

function Roles({
  roles,
  backends,
  onChanged,
}: {
  roles: Loaded<{ items: Schemas["RoleAssignment"][] }>;
  backends: Backend[];
  onChanged: () => void;
}) {
  return (
    <Show loaded={roles} what="Roles">
      {(r) => (
        <div class="roles">
          {r.items.map((role) => (
            // Keyed by what is saved, so a form starts again from the server's answer after a change.
            <RoleForm
              key={`${role.role}:${role.backend_id ?? ""}:${role.model ?? ""}`}
              role={role}
              backends={backends}
              onChanged={onChanged}
            />
          ))}
        </div>
      )}
    </Show>
  );
}

export function Models() {
  const backends = useApi(() => call(api.GET("/admin/backends", {})), []);
  const roles = useApi(() => call(api.GET("/admin/roles", {})), []);
  const presets = useApi(() => call(api.GET("/admin/presets", {})), []);
  const [editing, setEditing] = useState<string>();
  const edited = backends.data?.items.find((b) => b.id === editing);
  // A backend's roles and a role's backend show on both sides: any change reloads both.
  const changed = () => {
    backends.reload();
    roles.reload();
  };
  return (
    <section aria-labelledby="models-h">
      <h2 id="models-h">Model backends and roles</h2>
      <Show loaded={backends} what="Backends">
        {(b) =>
          b.items.length === 0 ? (
            <p class="muted">No backend yet: full reviews need one. Add one below.</p>
          ) : (
            <div class="scroll" tabIndex={0} role="region" aria-label="Backends table">
              <table class="backends">
                <thead>
                  <tr>
                    <th scope="col">Backend</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Address or command</th>
                    <th scope="col">Secret</th>
                    <th scope="col">Roles</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {b.items.map((x) => (
                    <BackendRow key={x.id} backend={x} onEdit={() => setEditing(x.id)} onChanged={changed} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      {edited ? (
        <div class="edit-form">
          <FocusedHeading>Change backend {edited.name}</FocusedHeading>
          <BackendForm
            key={edited.id}
            initial={edited}
            presets={presets.data?.items}
            onCancel={() => setEditing(undefined)}
            onSaved={() => {
              setEditing(undefined);
              changed();
            }}
          />
        </div>
      ) : null}
      <details class="add-form">
        <summary>Add a model backend</summary>
        <BackendForm presets={presets.data?.items} onSaved={changed} />
      </details>
      <h3>Roles</h3>
      <Roles roles={roles} backends={backends.data?.items ?? []} onChanged={changed} />
    </section>
  );
}
