/** The verdict card: result, score, the radar as an SVG chart, counts and why it is stale. */
import type { Schemas } from "../api/client";
import { Link } from "../router";
import { StateChip } from "../ui";

/** A radar of 0–100 values, one spoke per key; a polygon needs three keys, fewer draw bars. */
export function Radar({ radar }: { radar: Record<string, number> }) {
  const keys = Object.keys(radar).sort();
  if (keys.length === 0) return null;
  const size = 220;
  const c = size / 2;
  const r = c - 40;
  const point = (i: number, v: number) => {
    const a = (Math.PI * 2 * i) / keys.length - Math.PI / 2;
    return [c + Math.cos(a) * r * (v / 100), c + Math.sin(a) * r * (v / 100)] as const;
  };
  const poly = keys.map((k, i) => point(i, Math.max(0, Math.min(100, radar[k] ?? 0))).join(",")).join(" ");
  const label = keys.map((k) => `${k} ${radar[k]}`).join(", ");
  return (
    <svg
      class="radar"
      viewBox={`0 0 ${size} ${size}`}
      width={size}
      height={size}
      role="img"
      aria-label={`Radar: ${label}`}
    >
      {[25, 50, 75, 100].map((ring) => (
        <polygon key={ring} class="ring" points={keys.map((_, i) => point(i, ring).join(",")).join(" ")} />
      ))}
      {keys.map((k, i) => {
        const [x, y] = point(i, 100);
        const [lx, ly] = point(i, 122);
        return (
          <g key={k}>
            <line class="spoke" x1={c} y1={c} x2={x} y2={y} />
            <text x={lx} y={ly} text-anchor="middle" dominant-baseline="middle" class="radar-label">
              {k}
            </text>
          </g>
        );
      })}
      <polygon class="area" points={poly} />
    </svg>
  );
}

export function VerdictCard({ doc }: { doc: Schemas["SpecDoc"] }) {
  const v = doc.verdict;
  if (!v)
    return (
      <section class="card verdict" aria-label="Verdict">
        <h2>Verdict</h2>
        <p>
          <StateChip state="not_reviewed" /> No review on this version yet.
        </p>
        {doc.run_error ? <p class="problem-text">The last review failed: {doc.run_error}</p> : null}
      </section>
    );
  return (
    <section class="card verdict" aria-label="Verdict">
      <h2>Verdict</h2>
      <p>
        <StateChip state={v.result} /> <span class="score">score {v.score}</span>{" "}
        <span class="muted">
          {v.kind === "full" ? "full review" : "lint only"}, version {v.version_number}
        </span>
      </p>
      <dl class="counts">
        <div>
          <dt>MUST</dt>
          <dd>{v.must}</dd>
        </div>
        <div>
          <dt>SHOULD</dt>
          <dd>{v.should}</dd>
        </div>
        <div>
          <dt>INFO</dt>
          <dd>{v.info}</dd>
        </div>
        <div>
          <dt>Waived</dt>
          <dd>{v.waiver_count}</dd>
        </div>
        <div>
          <dt>Relaxed</dt>
          <dd>{v.relaxed_count}</dd>
        </div>
        {v.blocking_threads !== undefined ? (
          <div>
            <dt>Blocking threads</dt>
            <dd>{v.blocking_threads}</dd>
          </div>
        ) : null}
      </dl>
      <Radar radar={v.radar} />
      {v.ai_version_number !== undefined ? (
        <p class="muted">
          The AI review read version {v.ai_version_number}
          {v.sections_changed ? `; ${v.sections_changed} sections changed since` : ""}.
        </p>
      ) : null}
      {v.stale_reason === "upstream_changed" ? (
        <p class="stale">
          Stale: a linked doc has a newer version:{" "}
          {(v.stale_upstream ?? []).map((d, i) => (
            <span key={d.id}>
              {i > 0 ? ", " : ""}
              <Link href={`/docs/${d.id}`}>{d.title}</Link>
            </span>
          ))}
        </p>
      ) : null}
      {doc.run_error ? <p class="problem-text">The last review failed: {doc.run_error}</p> : null}
    </section>
  );
}
