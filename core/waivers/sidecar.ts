/**
 * The sidecar file: `<main doc name without .md>.review.yaml` beside the main doc, the
 * waivers and acknowledgements approved through the service, each signed (docs/waivers.md).
 * Reading is lenient (a sidecar someone broke gives no entries and a problem, never an
 * exception). The service (server/waivers) renders and checks it; the Action and the CLI
 * only read it, and cannot check a signature.
 */
import { parse, stringify } from "yaml";

export interface SidecarWaiver {
  id?: string;
  finding?: string;
  check?: string;
  file?: string;
  section?: string[];
  quote?: string;
  reason?: string;
  requested_by?: string;
  approved_by?: string[];
  approved_at?: string;
  signature?: string;
}

export interface SidecarAcknowledgement {
  id?: string;
  trace_id?: string;
  upstream?: string;
  standalone?: boolean;
  reason?: string;
  requested_by?: string;
  approved_by?: string[];
  approved_at?: string;
  signature?: string;
}

export interface Sidecar {
  waivers: SidecarWaiver[];
  acknowledgements: SidecarAcknowledgement[];
  /** Why the file could not be read, when it could not. */
  problem?: string;
}

/** The sidecar path of a main doc: `specs/prd.md` -> `specs/prd.review.yaml`. */
export function sidecarPath(mainPath: string): string {
  const slash = mainPath.lastIndexOf("/");
  const dir = mainPath.slice(0, slash + 1);
  const name = mainPath.slice(slash + 1).replace(/\.(md|markdown)$/i, "");
  return `${dir}${name}.review.yaml`;
}

const record = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);
const strs = (v: unknown) =>
  Array.isArray(v) ? v.map(str).filter((s): s is string => s !== undefined) : str(v) ? [str(v)!] : undefined;

function waiverOf(v: Record<string, unknown>): SidecarWaiver {
  return {
    id: str(v.id),
    finding: str(v.finding),
    check: str(v.check),
    file: str(v.file),
    section: strs(v.section),
    quote: str(v.quote),
    reason: str(v.reason),
    requested_by: str(v.requested_by),
    approved_by: strs(v.approved_by),
    approved_at: str(v.approved_at),
    signature: str(v.signature),
  };
}

function ackOf(v: Record<string, unknown>): SidecarAcknowledgement {
  return {
    id: str(v.id),
    trace_id: str(v.trace_id),
    upstream: str(v.upstream),
    standalone: v.standalone === true ? true : undefined,
    reason: str(v.reason),
    requested_by: str(v.requested_by),
    approved_by: strs(v.approved_by),
    approved_at: str(v.approved_at),
    signature: str(v.signature),
  };
}

export function parseSidecar(text: string): Sidecar {
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    return { waivers: [], acknowledgements: [], problem: `the sidecar is not valid YAML: ${String(err)}` };
  }
  if (data === null || data === undefined) return { waivers: [], acknowledgements: [] };
  if (!record(data))
    return { waivers: [], acknowledgements: [], problem: "the sidecar is not a YAML mapping" };
  const list = (v: unknown) => (Array.isArray(v) ? v.filter(record) : []);
  return {
    waivers: list(data.waivers).map(waiverOf),
    acknowledgements: list(data.acknowledgements).map(ackOf),
  };
}

/** Drop undefined fields so the YAML carries only what an entry has (and signs what it shows). */
export function clean<T extends object>(entry: T): T {
  return Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as T;
}

const HEADER = [
  "# spec-review sidecar: waivers and acknowledgements approved through spec-review.",
  "# Each entry is signed by the service. An entry added or edited by hand is not honoured:",
  "# spec-review turns it into a waiver request that counts once approved there (docs/waivers.md).",
  "",
].join("\n");

export function renderSidecar(sidecar: Omit<Sidecar, "problem">): string {
  return (
    HEADER +
    stringify(
      { waivers: sidecar.waivers.map(clean), acknowledgements: sidecar.acknowledgements.map(clean) },
      { lineWidth: 0 },
    )
  );
}
