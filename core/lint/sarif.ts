/**
 * SARIF 2.1.0 output that GitHub code scanning accepts: one run, one rule per check
 * (`<profile>/<slug>`, engine checks as `spec-review/<slug>`), one result per finding with
 * its region (1-based lines, UTF-16 columns, end column exclusive) and the finding id as
 * a partial fingerprint so alerts follow the text across commits. Pure.
 */
import { TextIndex, type LineCol } from "../markdown/text.js";
import type { Profile } from "../profile/schema.js";
import { ENGINE_CHECKS } from "./engine.js";
import type { Finding, Level } from "./types.js";

export interface SarifDoc {
  /** Path of the doc relative to the repository root (posix), used as the artifact URI. */
  uri: string;
  /** The doc's text (positions are computed from it), or an index of it. */
  text?: string | TextIndex;
  /** Or the positions of each finding, in the order of `findings`. */
  positions?: readonly { start: LineCol; end: LineCol }[];
  profile_key: string;
  findings: readonly Finding[];
}

export interface SarifOptions {
  toolVersion: string;
  /** Profiles, to describe rules. */
  profiles?: readonly Profile[];
  /** The tool's repository URL; rules then get a helpUri to their docs/checks page. */
  informationUri?: string;
}

export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: "error" | "warning" | "note";
  message: { text: string };
  locations: {
    physicalLocation: {
      artifactLocation: { uri: string; uriBaseId: string };
      region: {
        startLine: number;
        startColumn: number;
        endLine: number;
        endColumn: number;
        snippet?: { text: string };
      };
    };
  }[];
  partialFingerprints: Record<string, string>;
  properties: { level: Level; category: string; relaxed: boolean };
}

export interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription?: { text: string };
  defaultConfiguration: { level: "error" | "warning" | "note" };
  helpUri?: string;
  properties: { category?: string; kind?: string; tags: string[] };
}

export interface SarifLog {
  $schema: string;
  version: "2.1.0";
  runs: {
    tool: {
      driver: {
        name: string;
        version: string;
        semanticVersion: string;
        informationUri?: string;
        rules: SarifRule[];
      };
    };
    columnKind: "utf16CodeUnits";
    originalUriBaseIds: Record<string, { description: { text: string } }>;
    results: SarifResult[];
  }[];
}

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

const sarifLevel = (l: Level) => (l === "MUST" ? "error" : l === "SHOULD" ? "warning" : "note");

function ruleName(id: string): string {
  return id
    .split(/[/-]/)
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join("");
}

export function toSarif(docs: readonly SarifDoc[], options: SarifOptions): SarifLog {
  const infoUri = options.informationUri;
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  const ruleFor = (doc: SarifDoc, f: Finding): number => {
    const engine = f.check in ENGINE_CHECKS;
    const id = engine ? `spec-review/${f.check}` : `${doc.profile_key}/${f.check}`;
    let index = ruleIndex.get(id);
    if (index !== undefined) return index;
    const entry = engine
      ? undefined
      : options.profiles?.find((p) => p.key === doc.profile_key)?.checks.find((c) => c.slug === f.check);
    const short = engine
      ? ENGINE_CHECKS[f.check as keyof typeof ENGINE_CHECKS].message
      : (entry?.description ?? entry?.message ?? f.check);
    const rule: SarifRule = {
      id,
      name: ruleName(id),
      shortDescription: { text: short.replace(/\{[a-z_]+\}/g, "…") },
      defaultConfiguration: { level: sarifLevel(entry?.level ?? f.level) },
      properties: { category: f.category, tags: ["spec-review", doc.profile_key] },
    };
    if (entry) {
      rule.properties.kind = entry.kind;
      if (infoUri) rule.helpUri = `${infoUri.replace(/\/$/, "")}/blob/main/docs/checks/${entry.kind}.md`;
      if (entry.description && entry.message) rule.fullDescription = { text: entry.message };
    }
    index = rules.length;
    rules.push(rule);
    ruleIndex.set(id, index);
    return index;
  };

  const results: SarifResult[] = [];
  for (const doc of docs) {
    const index = typeof doc.text === "string" ? new TextIndex(doc.text) : doc.text;
    doc.findings.forEach((f, n) => {
      const i = ruleFor(doc, f);
      const given = doc.positions?.[n];
      const start = given?.start ?? index?.positionOfByte(f.anchor.start) ?? { line: 1, column: 1 };
      const end = given?.end ?? index?.positionOfByte(f.anchor.end) ?? start;
      const region: SarifResult["locations"][number]["physicalLocation"]["region"] = {
        startLine: start.line,
        startColumn: start.column,
        endLine: end.line,
        endColumn: end.line === start.line ? Math.max(end.column, start.column) : end.column,
      };
      if (f.anchor.quote !== "") region.snippet = { text: f.anchor.quote };
      results.push({
        ruleId: rules[i]!.id,
        ruleIndex: i,
        level: sarifLevel(f.level),
        message: { text: f.message },
        locations: [
          { physicalLocation: { artifactLocation: { uri: doc.uri, uriBaseId: "%SRCROOT%" }, region } },
        ],
        partialFingerprints: { "specReviewFindingId/v1": f.id },
        properties: { level: f.level, category: f.category, relaxed: f.relaxed },
      });
    });
  }
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "spec-review",
            version: options.toolVersion,
            semanticVersion: options.toolVersion,
            ...(infoUri ? { informationUri: infoUri } : {}),
            rules,
          },
        },
        columnKind: "utf16CodeUnits",
        originalUriBaseIds: { "%SRCROOT%": { description: { text: "The folder spec-review linted from" } } },
        results,
      },
    ],
  };
}
