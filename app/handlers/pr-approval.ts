/**
 * `pull_request_review` submitted, `approved`: a hand-written sidecar waiver counts when the
 * approver it names approves the pull request on GitHub (docs/waivers.md, "Approved on
 * GitHub"). The reviewer is placed by the GitHub login linked to their account
 * (docs/accounts.md); for each spec doc of a repohost bundle the pull request touches, every
 * waiver request the doc's sidecar asked for (`source: sidecar`, still `requested`) whose
 * entry names that login in `approved_by` gets that account's approval, through the waiver
 * service, so the profile's policy decides as for an approval in the service (`approvers`,
 * the number of approvals, never the requester's own). A reviewer with no linked account
 * decides nothing.
 */
import { and, eq } from "drizzle-orm";
import { parseSidecar, sidecarPath, type Sidecar } from "../../core/waivers/sidecar.js";
import { decodeText } from "../../core/lint/engine.js";
import { actorOfUser } from "../../server/auth/sessions.js";
import {
  repohostBundles,
  repohostSources,
  repohostVersions,
  users,
  waivers,
} from "../../server/db/schema.js";
import { ApiError } from "../../server/errors.js";
import type { WaiverRow } from "../../server/waivers/views.js";
import type { AppDeps } from "../deps.js";
import { docOfPath } from "./review-comment.js";

export interface ReviewSubmittedEvent {
  owner: string;
  repo: string;
  pullNumber: number;
  /** GitHub's review state: `approved`, `changes_requested`, `commented` (any case). */
  state: string;
  reviewer: string;
}

interface Gh {
  request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }>;
}

/** A name of `approved_by` as a login: `@Rui-R` and `rui-r` are the same. */
function asLogin(name: string): string {
  return name.trim().replace(/^@/, "").toLowerCase();
}

/** The sidecar entry a request was made from: the same identity the sidecar sync gives it. */
function entryOf(row: WaiverRow, sidecar: Sidecar) {
  if (row.kind === "finding")
    return sidecar.waivers.find(
      (e) =>
        (e.reason ?? "").trim() === row.reason &&
        (e.check ?? null) === row.checkSlug &&
        (e.quote ?? null) === (row.anchor?.quote ?? null),
    );
  return sidecar.acknowledgements.find(
    (e) =>
      (e.reason ?? "").trim() === row.reason &&
      (row.kind === "standalone" ? e.standalone === true : (e.trace_id ?? null) === row.traceId),
  );
}

/** Answers the ids of the waivers the approval decided (approved, or one approval nearer). */
export async function onPullRequestApproved(
  gh: Gh,
  ev: ReviewSubmittedEvent,
  deps: AppDeps,
): Promise<string[]> {
  if (ev.state.toLowerCase() !== "approved" || !deps.waivers) return [];
  const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", {
    owner: ev.owner,
    repo: ev.repo,
    pull_number: ev.pullNumber,
    per_page: 100,
  });
  const docIds = new Set<string>();
  for (const f of data as Array<{ filename: string }>) {
    const hit = await docOfPath(deps, ev.owner, ev.repo, f.filename);
    if (hit) docIds.add(hit.docId);
  }
  return approveAs(deps, ev.reviewer, docIds, { repo: `${ev.owner}/${ev.repo}`, pull: ev.pullNumber });
}

/**
 * The open sidecar requests of `docIds` whose entry names `reviewer` (a GitHub login) in
 * `approved_by` get the approval of the account that linked that login, through the waiver
 * service (the policy decides). Answers the ids of the waivers decided.
 */
async function approveAs(
  deps: AppDeps,
  reviewer: string,
  docIds: Iterable<string>,
  where: { repo: string; pull: number },
): Promise<string[]> {
  if (!deps.waivers) return [];
  const login = reviewer.toLowerCase();
  const [user] = await deps.db.select().from(users).where(eq(users.githubLogin, login));
  if (!user || user.removedAt) {
    deps.logger.info("pull request approval from a GitHub login no account has linked: no waiver decided", {
      ...where,
      login,
    });
    return [];
  }
  const actor = actorOfUser(user);
  const decided: string[] = [];
  for (const docId of docIds) {
    const open = (await deps.db
      .select()
      .from(waivers)
      .where(
        and(eq(waivers.docId, docId), eq(waivers.source, "sidecar"), eq(waivers.status, "requested")),
      )) as WaiverRow[];
    if (open.length === 0) continue;
    const record = await deps.waivers.store.doc(docId);
    const path = sidecarPath(record.doc.path);
    const manifest = await deps.waivers.store.manifest(record.head.id);
    if (!manifest.some((f) => f.path === path)) continue;
    const sidecar = parseSidecar(
      decodeText((await deps.waivers.store.fileBytes(record.head.id, path)).bytes).text,
    );
    for (const row of open) {
      const entry = entryOf(row, sidecar);
      if (!entry || !(entry.approved_by ?? []).some((name) => asLogin(name) === login)) continue;
      try {
        await deps.waivers.area.waivers.approve(row.id, actor);
        decided.push(row.id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // The policy leaves this approver out, it is their own request, or they approved already.
        deps.logger.info("pull request approval does not decide this waiver", {
          waiver: row.id,
          login,
          code: err.code,
        });
      }
    }
  }
  if (decided.length) deps.logger.info("waivers approved on GitHub", { ...where, login, waivers: decided });
  return decided;
}

/**
 * The logins whose latest verdict on a pull request is an approval: GitHub lists every
 * review, oldest first; a later "changes requested" or a dismissal takes an approval back,
 * a comment does not.
 */
export function approvingLogins(
  reviews: ReadonlyArray<{ state?: string; user?: { login?: string } | null }>,
) {
  const last = new Map<string, string>();
  for (const r of reviews) {
    const login = r.user?.login?.toLowerCase();
    const state = (r.state ?? "").toUpperCase();
    if (login && ["APPROVED", "CHANGES_REQUESTED", "DISMISSED"].includes(state)) last.set(login, state);
  }
  return [...last].filter(([, s]) => s === "APPROVED").map(([l]) => l);
}

/**
 * Sidecar requests a new version asked for, when that version is a merge: the usual order is
 * that the approver approves the pull request that adds the entry, and the entry becomes a
 * request only once merged, after the approval came. So when a version of a repohost doc
 * makes requests, the merged pull requests of its commit are read
 * (`GET /repos/{owner}/{repo}/commits/{sha}/pulls`) with their reviews, and each login whose
 * latest review approves counts as if it approved now. Sources read with a token (no App)
 * have no installation to ask, and decide nothing here.
 */
export async function approvalsOfMerge(
  ghOf: (installationId: number) => Promise<Gh>,
  ev: { docId: string; bundleId: string; versionId: string },
  deps: AppDeps,
): Promise<string[]> {
  const [row] = await deps.db
    .select({
      owner: repohostSources.owner,
      repo: repohostSources.repo,
      installationId: repohostSources.installationId,
      commit: repohostVersions.commit,
    })
    .from(repohostBundles)
    .innerJoin(repohostSources, eq(repohostSources.id, repohostBundles.sourceId))
    .innerJoin(repohostVersions, eq(repohostVersions.versionId, ev.versionId))
    .where(eq(repohostBundles.bundleId, ev.bundleId));
  if (!row || row.installationId === null) return [];
  const gh = await ghOf(row.installationId);
  const { owner, repo } = row;
  const { data: pulls } = await gh.request("GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls", {
    owner,
    repo,
    commit_sha: row.commit,
  });
  const decided: string[] = [];
  for (const pr of pulls as Array<{ number: number; merged_at?: string | null }>) {
    if (!pr.merged_at) continue;
    const reviews: Array<{ state?: string; user?: { login?: string } | null }> = [];
    for (let page = 1; page <= 30; page++) {
      const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner,
        repo,
        pull_number: pr.number,
        per_page: 100,
        page,
      });
      const list = data as typeof reviews;
      reviews.push(...list);
      if (list.length < 100) break;
    }
    for (const login of approvingLogins(reviews))
      decided.push(
        ...(await approveAs(deps, login, [ev.docId], { repo: `${owner}/${repo}`, pull: pr.number })),
      );
  }
  return decided;
}
