/**
 * The admin page's MCP section: connections with their tools, a form to add or change one
 * (stdio: a command run without a shell; http: a streamable HTTP address), and delete with
 * a confirm step. As for backends, the API judges the fields (server/mcp/connections.ts)
 * and the form shows its problem; the secret is write-only.
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Button, ProblemBox, Show, useAction, useApi } from "../ui";
import { ConfirmDelete, FocusedHeading, lines, SecretField } from "./admin-models";

type Connection = Schemas["McpConnection"];
type ConnectionBody = Schemas["McpConnectionRequest"];
type Transport = ConnectionBody["transport"];

function McpTools({ id }: { id: string }) {
  const tools = useApi(
    () => call(api.GET("/admin/mcp/{connectionId}/tools", { params: { path: { connectionId: id } } })),
    [id],
  );
  return (
    <Show loaded={tools} what="Tools">
      {(t) => (
        <ul class="mcp-tools">
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

/** Add a connection (no `initial`) or change one (PUT: the whole body; a blank secret keeps the stored one). */
function McpForm({
  initial,
  onSaved,
  onCancel,
}: {
  initial?: Connection;
  onSaved: () => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(initial?.name ?? "");
  const [transport, setTransport] = useState<Transport>(initial?.transport ?? "stdio");
  const [command, setCommand] = useState((initial?.command ?? []).join("\n"));
  const [url, setUrl] = useState(initial?.url ?? "");
  const [secretEnv, setSecretEnv] = useState(initial?.secret_env ?? "");
  const [secret, setSecret] = useState("");
  const [removeSecret, setRemoveSecret] = useState(false);
  const [allow, setAllow] = useState((initial?.tool_allowlist ?? []).join("\n"));
  const [isSearch, setIsSearch] = useState(initial?.is_search ?? false);
  const [searchTool, setSearchTool] = useState(initial?.search_tool ?? "");
  const [hosts, setHosts] = useState((initial?.hosts ?? []).join("\n"));
  const [fetchTool, setFetchTool] = useState(initial?.fetch_tool ?? "");
  const act = useAction();
  const stdio = transport === "stdio";

  const body = (): ConnectionBody => {
    const b: ConnectionBody = { name, transport, tool_allowlist: lines(allow), is_search: isSearch };
    if (stdio) {
      b.command = lines(command);
      if (secretEnv.trim()) b.secret_env = secretEnv.trim();
    } else b.url = url.trim();
    if (removeSecret) b.secret = "";
    else if (secret) b.secret = secret;
    if (isSearch && searchTool.trim()) b.search_tool = searchTool.trim();
    const h = lines(hosts);
    if (h.length) b.hosts = h;
    if (fetchTool.trim()) b.fetch_tool = fetchTool.trim();
    return b;
  };

  return (
    <form
      class="grid-form admin-form"
      aria-label={initial ? `Change MCP connection ${initial.name}` : "Add an MCP connection"}
      onSubmit={(e) => {
        e.preventDefault();
        void act
          .run(() =>
            call(
              initial
                ? api.PUT("/admin/mcp/{connectionId}", {
                    params: { path: { connectionId: initial.id } },
                    body: body(),
                  })
                : api.POST("/admin/mcp", { body: body() }),
            ),
          )
          .then((r) => {
            if (!r) return;
            setSecret("");
            setRemoveSecret(false);
            if (!initial) {
              setName("");
              setCommand("");
              setUrl("");
            }
            onSaved();
          });
      }}
    >
      <label>
        Name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Transport
        <select value={transport} onChange={(e) => setTransport(e.currentTarget.value as Transport)}>
          <option value="stdio">stdio (a program on this machine)</option>
          <option value="http">http (streamable HTTP)</option>
        </select>
      </label>
      {stdio ? (
        <>
          <label>
            Command, one argument a line (run without a shell)
            <textarea
              rows={3}
              spellcheck={false}
              value={command}
              onInput={(e) => setCommand(e.currentTarget.value)}
            />
          </label>
          <label>
            Secret variable (the environment variable the server gets the secret in)
            <input
              spellcheck={false}
              value={secretEnv}
              onInput={(e) => setSecretEnv(e.currentTarget.value)}
            />
          </label>
        </>
      ) : (
        <label>
          URL
          <input
            inputMode="url"
            spellcheck={false}
            value={url}
            placeholder="https://mcp.example.com/mcp"
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
      )}
      <SecretField
        label={stdio ? "Secret" : "Secret, sent as a bearer token"}
        stored={initial?.has_secret ? initial.secret_last4 : undefined}
        secret={secret}
        setSecret={setSecret}
        remove={removeSecret}
        setRemove={setRemoveSecret}
      />
      <label>
        Tools the service may call, one a line (a destructive tool is never called)
        <textarea
          rows={3}
          spellcheck={false}
          value={allow}
          onInput={(e) => setAllow(e.currentTarget.value)}
        />
      </label>
      <label>
        <input type="checkbox" checked={isSearch} onChange={(e) => setIsSearch(e.currentTarget.checked)} /> A
        search connection (grounding searches each claim with it)
      </label>
      {isSearch ? (
        <label>
          Search tool (on the list above)
          <input
            spellcheck={false}
            value={searchTool}
            onInput={(e) => setSearchTool(e.currentTarget.value)}
          />
        </label>
      ) : null}
      <label>
        Hosts whose links it reads, one a line (docs.example.com, *.example.com; optional)
        <textarea
          rows={2}
          spellcheck={false}
          value={hosts}
          onInput={(e) => setHosts(e.currentTarget.value)}
        />
      </label>
      {lines(hosts).length || fetchTool ? (
        <label>
          Fetch tool (reads a link of those hosts; on the list above)
          <input spellcheck={false} value={fetchTool} onInput={(e) => setFetchTool(e.currentTarget.value)} />
        </label>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={act.busy} aria-busy={act.busy || undefined}>
          {initial ? "Save the connection" : "Add the connection"}
        </button>{" "}
        {onCancel ? <Button onClick={onCancel}>Cancel</Button> : null}
      </div>
      <ProblemBox error={act.error} />
    </form>
  );
}

function McpItem({
  connection: c,
  onEdit,
  onChanged,
}: {
  connection: Connection;
  onEdit: () => void;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  const act = useAction();
  return (
    <li class="mcp-item">
      <strong>{c.name}</strong> <span class="tag">{c.transport}</span>{" "}
      {c.is_search ? <span class="tag">search</span> : null}{" "}
      {c.has_secret ? <span class="muted">secret …{c.secret_last4}</span> : null}{" "}
      <code>{c.transport === "http" ? (c.url ?? "") : (c.command ?? []).join(" ")}</code>
      {c.tool_allowlist.length ? (
        <span class="muted"> allowed: {c.tool_allowlist.join(", ")}</span>
      ) : (
        <span class="muted"> no tool allowed yet</span>
      )}
      <div class="item-actions">
        <Button label={`${open ? "Hide" : "List"} tools of ${c.name}`} onClick={() => setOpen(!open)}>
          {open ? "Hide tools" : "List tools"}
        </Button>{" "}
        <Button label={`Edit MCP connection ${c.name}`} onClick={onEdit}>
          Edit
        </Button>{" "}
        <ConfirmDelete
          what={`MCP connection ${c.name}`}
          busy={act.busy}
          onConfirm={() =>
            void act
              .run(() =>
                call(api.DELETE("/admin/mcp/{connectionId}", { params: { path: { connectionId: c.id } } })),
              )
              .then(() => onChanged())
          }
        />
      </div>
      <ProblemBox error={act.error} />
      {open ? <McpTools id={c.id} /> : null}
    </li>
  );
}

export function Mcp() {
  const list = useApi(() => call(api.GET("/admin/mcp", {})), []);
  const [editing, setEditing] = useState<string>();
  const edited = list.data?.items.find((c) => c.id === editing);
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
                <McpItem key={c.id} connection={c} onEdit={() => setEditing(c.id)} onChanged={list.reload} />
              ))}
            </ul>
          )
        }
      </Show>
      {edited ? (
        <div class="edit-form">
          <FocusedHeading>Change MCP connection {edited.name}</FocusedHeading>
          <McpForm
            key={edited.id}
            initial={edited}
            onCancel={() => setEditing(undefined)}
            onSaved={() => {
              setEditing(undefined);
              list.reload();
            }}
          />
        </div>
      ) : null}
      <details class="add-form">
        <summary>Add an MCP connection</summary>
        <McpForm onSaved={list.reload} />
      </details>
    </section>
  );
}
