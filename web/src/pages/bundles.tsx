/**
 * `/`: every bundle with its state chip and the next action, filtered by state, profile and
 * title (in the URL, so a filtered list is a link), a page at a time; then the folders that
 * are not valid bundles, and the markdown the scan skipped with the action that adopts it.
 */
import { useMemo, useState } from "preact/hooks";
import { api, call, type Schemas } from "../api/client";
import { Link, navigate, useLocation } from "../router";
import { Button, ProblemBox, StateChip, useAction, useApi, Loading } from "../ui";

type Bundle = Schemas["Bundle"];
const PAGE = 100;

function setQuery(key: string, value: string) {
  const q = new URLSearchParams(location.search);
  if (value) q.set(key, value);
  else q.delete(key);
  const s = q.toString();
  navigate(location.pathname + (s ? `?${s}` : ""), true);
}

function BundleRow({ b }: { b: Bundle }) {
  const main = b.docs[0];
  const action = b.docs.find((d) => d.next_action)?.next_action;
  return (
    <li class="bundle" data-state={b.state}>
      <div class="bundle-head">
        <StateChip state={b.state} />
        {main ? (
          <Link href={`/docs/${main.id}`} class="bundle-title">
            {b.title}
          </Link>
        ) : (
          <span class="bundle-title">{b.title}</span>
        )}
        <span class="muted">{b.slug}</span>
      </div>
      <ul class="docs">
        {b.docs.map((d) => (
          <li key={d.id}>
            <Link href={`/docs/${d.id}`}>{d.title}</Link> <span class="tag">{d.profile_key}</span>{" "}
            {d.verdict ? <StateChip state={d.verdict.result} /> : null}
            {d.verdict ? <span class="muted"> score {d.verdict.score}</span> : null}
            {d.run_error ? <span class="problem-text"> review failed: {d.run_error}</span> : null}
          </li>
        ))}
      </ul>
      {action ? <p class="next-action">Next: {action.sentence}</p> : null}
    </li>
  );
}

function Skipped() {
  const skipped = useApi(() => call(api.GET("/skipped", {})), []);
  const profiles = useApi(() => call(api.GET("/profiles", {})), []);
  const [picks, setPicks] = useState<Record<string, string>>({});
  const act = useAction();
  if (skipped.error) return <ProblemBox error={skipped.error} what="Skipped files" />;
  const items = skipped.data?.items ?? [];
  if (items.length === 0) return null;
  const chosen = Object.entries(picks).filter(([, p]) => p);
  return (
    <section aria-labelledby="skipped-h">
      <h2 id="skipped-h">Markdown files with no type ({items.length})</h2>
      <p class="muted">Pick a doc type for a file to make it a spec doc.</p>
      <ul class="plain">
        {items.map((s) => (
          <li key={s.path}>
            <label>
              <code>{s.path}</code>{" "}
              <select
                value={picks[s.path] ?? ""}
                onChange={(e) => setPicks({ ...picks, [s.path]: e.currentTarget.value })}
                aria-label={`Doc type for ${s.path}`}
              >
                <option value="">not a spec</option>
                {(profiles.data?.items ?? []).map((p) => (
                  <option key={p.key} value={p.key}>
                    {p.title}
                  </option>
                ))}
              </select>
            </label>
          </li>
        ))}
      </ul>
      <Button
        kind="primary"
        busy={act.busy}
        disabled={chosen.length === 0}
        onClick={() =>
          void act
            .run(() =>
              call(
                api.POST("/skipped", {
                  body: { docs: chosen.map(([path, profile]) => ({ path, profile })) },
                }),
              ),
            )
            .then((r) => r && location.reload())
        }
      >
        Write the types
      </Button>
      <ProblemBox error={act.error} />
    </section>
  );
}

export function BundleList() {
  const loc = useLocation();
  const state = loc.query.get("state") ?? "";
  const profile = loc.query.get("profile") ?? "";
  const q = loc.query.get("q") ?? "";
  const [pages, setPages] = useState<Schemas["BundleList"][]>([]);
  const first = useApi(async () => {
    const page = await call(api.GET("/bundles", { params: { query: { limit: PAGE } } }));
    setPages([page]);
    return page;
  }, []);
  const more = useAction();
  const items = useMemo(() => pages.flatMap((p) => p.items), [pages]);
  const next = pages[pages.length - 1]?.next_cursor;
  const profileKeys = useMemo(
    () => [...new Set(items.flatMap((b) => b.docs.map((d) => d.profile_key)))].sort(),
    [items],
  );
  const shown = useMemo(() => {
    const needle = q.trim().toLowerCase();
    return items.filter(
      (b) =>
        (!state || b.state === state) &&
        (!profile || b.docs.some((d) => d.profile_key === profile)) &&
        (!needle ||
          b.title.toLowerCase().includes(needle) ||
          b.docs.some((d) => d.title.toLowerCase().includes(needle))),
    );
  }, [items, state, profile, q]);

  return (
    <section aria-labelledby="bundles-h">
      <h1 id="bundles-h">Bundles</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search titles{" "}
          <input type="search" value={q} onInput={(e) => setQuery("q", e.currentTarget.value)} />
        </label>
        <label>
          State{" "}
          <select value={state} onChange={(e) => setQuery("state", e.currentTarget.value)}>
            <option value="">any</option>
            <option value="not_build_ready">Not Build Ready</option>
            <option value="not_reviewed">Not reviewed</option>
            <option value="build_ready">Build Ready</option>
          </select>
        </label>
        <label>
          Profile{" "}
          <select value={profile} onChange={(e) => setQuery("profile", e.currentTarget.value)}>
            <option value="">any</option>
            {profileKeys.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ProblemBox error={first.error} what="Bundles" />
      {first.loading && pages.length === 0 ? <Loading label="Loading bundles" /> : null}
      {pages.length > 0 ? (
        <p class="muted" aria-live="polite" id="bundle-count">
          {shown.length} of {items.length} bundles{next ? " loaded so far" : ""}
        </p>
      ) : null}
      <ul class="bundles" aria-label="Bundles">
        {shown.map((b) => (
          <BundleRow key={b.id} b={b} />
        ))}
      </ul>
      {next ? (
        <Button
          busy={more.busy}
          onClick={() =>
            void more.run(async () => {
              const page = await call(
                api.GET("/bundles", { params: { query: { limit: PAGE, cursor: next } } }),
              );
              setPages((p) => [...p, page]);
            })
          }
        >
          Load more bundles
        </Button>
      ) : null}
      <ProblemBox error={more.error} />
      {pages[0] && pages[0].problems.length > 0 ? (
        <section aria-labelledby="problems-h">
          <h2 id="problems-h">Folders that are not valid bundles</h2>
          <ul class="plain">
            {pages
              .flatMap((p) => p.problems)
              .map((p) => (
                <li key={p.path}>
                  <code>{p.path}</code>: {p.message}
                </li>
              ))}
          </ul>
        </section>
      ) : null}
      {pages.length > 0 ? <Skipped /> : null}
    </section>
  );
}
