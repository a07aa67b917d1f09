/** Pieces every page uses: loading an API answer, showing a problem, progress, chips. */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { ApiProblem } from "./api/client";
import { Link } from "./router";

export interface Loaded<T> {
  data?: T;
  error?: ApiProblem;
  loading: boolean;
  reload: () => void;
}

/** Loads `fn()` when `deps` change; `reload` asks again. */
export function useApi<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiProblem; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, loading: false }),
      (err: unknown) => live && setState({ error: asProblem(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function asProblem(err: unknown): ApiProblem {
  return err instanceof ApiProblem ? err : new ApiProblem(0, { title: "Error", detail: String(err) });
}

/** An action's state: running (for progress), and its problem. */
export function useAction(): {
  busy: boolean;
  error?: ApiProblem;
  run: <T>(fn: () => Promise<T>) => Promise<T | undefined>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiProblem>();
  const run = useCallback(async <T,>(fn: () => Promise<T>) => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn();
    } catch (err) {
      setError(asProblem(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

/** A problem+json answer in words: its detail; a 501 says the feature is not available yet. */
export function ProblemBox({ error, what }: { error?: ApiProblem; what?: string }) {
  if (!error) return null;
  if (error.notAvailable)
    return (
      <p class="notice not-available" role="status">
        <strong>{what ? `${what}: not available yet.` : "Not available yet."}</strong>{" "}
        {error.problem.detail ?? ""}
      </p>
    );
  return (
    <p class="notice problem" role="alert">
      <strong>{error.problem.title ?? "Error"}</strong>
      {error.problem.detail ? `: ${error.problem.detail}` : ""}
      {error.code ? <code class="code"> {error.code}</code> : null}
    </p>
  );
}

export function Loading({ label = "Loading" }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}…
    </p>
  );
}

/** A whole loaded value: progress, its problem, or the content. */
export function Show<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  what?: string;
  children: (data: T) => ComponentChildren;
}) {
  if (loaded.error) return <ProblemBox error={loaded.error} what={what} />;
  if (loaded.data === undefined)
    return <Loading label={what ? `Loading ${what.toLowerCase()}` : "Loading"} />;
  return <>{children(loaded.data)}</>;
}

const STATE_WORDS: Record<string, string> = {
  build_ready: "Build Ready",
  not_build_ready: "Not Build Ready",
  not_reviewed: "Not reviewed",
  stale: "Stale",
};

export function StateChip({ state }: { state: string }) {
  return <span class={`chip chip-${state}`}>{STATE_WORDS[state] ?? state.replace(/_/g, " ")}</span>;
}

export function Button(props: {
  onClick: () => void;
  busy?: boolean;
  disabled?: boolean;
  kind?: "primary" | "plain" | "danger";
  children: ComponentChildren;
  label?: string;
}) {
  return (
    <button
      type="button"
      class={`btn btn-${props.kind ?? "plain"}`}
      onClick={props.onClick}
      disabled={props.disabled || props.busy}
      aria-busy={props.busy ? "true" : undefined}
      aria-label={props.label}
    >
      {props.busy ? <span class="spinner" aria-hidden="true" /> : null}
      {props.children}
    </button>
  );
}

export function when(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** The tabs of one doc: each is its own route. */
export function DocTabs({ docId, active }: { docId: string; active: string }) {
  const tabs: Array<[string, string]> = [
    ["", "Doc"],
    ["review", "Review"],
    ["history", "Versions"],
    ["trace", "Trace"],
    ["collab", "Collaboration"],
    ["profile", "Profile"],
  ];
  return (
    <nav class="tabs" aria-label="Doc pages">
      {tabs.map(([path, label]) => (
        <Link
          key={path}
          href={`/docs/${docId}${path ? "/" + path : ""}`}
          aria-current={active === path ? "page" : undefined}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
