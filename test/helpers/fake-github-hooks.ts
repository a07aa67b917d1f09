/**
 * The fake GitHub's side of an App's webhooks (plugged into test/helpers/fake-github.ts
 * through its `routes`): deliveries sent for real over HTTP, signed with the webhook
 * secret, to the App's address, and remembered as GitHub remembers them:
 *
 *   GET  /app                                   the App (its slug)
 *   GET  /app/hook/deliveries                   newest first, `per_page`, `cursor` in a `Link` next
 *   POST /app/hook/deliveries/{id}/attempts     delivered again (same guid, `redelivery: true`)
 *   POST …/issues/comments/{id}/reactions       recorded (`reactions`)
 *   POST …/pulls/comments/{id}/reactions
 *   GET  …/pulls?state=open&sort=updated        open pull requests, newest update first (`pulled`)
 *   GET  …/pulls/{n}                            with its base (the default branch's head)
 *
 * `down = true` is an outage: a delivery is remembered as failed and nothing is sent.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { FakeGitHub, FakeRepo, FakeRoute } from "./fake-github.js";

export interface FakeDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
  payload: Record<string, unknown>;
}

export class FakeHooks {
  /** Every delivery, oldest first (a redelivery is one more, under the same guid). */
  readonly deliveries: FakeDelivery[] = [];
  readonly reactions: Array<{ kind: "issue" | "review"; commentId: number; content: string }> = [];
  /** Ids of the deliveries the App asked to be sent again. */
  readonly redeliveryRequests: number[] = [];
  /** When each open pull request was last updated (GET /pulls lists them by it): `owner/repo#n`. */
  readonly updatedAt = new Map<string, string>();
  slug = "spec-review";
  /** Where deliveries go (the App's webhook address). */
  target = "";
  down = false;
  /** Redeliveries wait (up to 30 s) for `target` to be set rather than fail (an App starting on a new port). */
  awaitTarget = false;
  /** GitHub's clock for `delivered_at`. */
  now: () => Date = () => new Date();
  private seq = 70_000;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly gh: FakeGitHub,
    private readonly secret: string,
  ) {
    gh.routes.push((req, send) => this.route(req, send));
  }

  /** Forget every delivery, reaction and update time (a test's start). */
  reset(): void {
    this.deliveries.length = 0;
    this.reactions.length = 0;
    this.redeliveryRequests.length = 0;
    this.updatedAt.clear();
    this.down = false;
  }

  /** A webhook GitHub sends now (or fails to, while `down`). */
  send(event: string, payload: Record<string, unknown>): Promise<FakeDelivery> {
    const d: FakeDelivery = {
      id: ++this.seq,
      guid: randomUUID(),
      delivered_at: this.now().toISOString(),
      redelivery: false,
      status: "pending",
      status_code: 0,
      event,
      action: typeof payload.action === "string" ? payload.action : null,
      installation_id: (payload.installation as { id?: number } | undefined)?.id ?? null,
      repository_id: (payload.repository as { id?: number } | undefined)?.id ?? null,
      payload,
    };
    this.deliveries.push(d);
    return this.post(d).then(() => d);
  }

  /** Resolves once every redelivery under way has been answered. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** The deliveries of one guid, oldest first. */
  attempts(guid: string): FakeDelivery[] {
    return this.deliveries.filter((d) => d.guid === guid);
  }

  private async post(d: FakeDelivery): Promise<void> {
    // A redelivery asked for by an App still starting waits for its address (`awaitTarget`).
    for (let i = 0; d.redelivery && this.awaitTarget && !this.target && i < 1500; i++)
      await new Promise((r) => setTimeout(r, 20));
    if (this.down || !this.target) {
      d.status = "failed to connect to host";
      d.status_code = 0;
      return;
    }
    const body = JSON.stringify(d.payload);
    try {
      const res = await fetch(this.target, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": d.event,
          "x-github-delivery": d.guid,
          "x-hub-signature-256": `sha256=${createHmac("sha256", this.secret).update(body).digest("hex")}`,
        },
        body,
      });
      await res.arrayBuffer();
      d.status_code = res.status;
      d.status = res.ok ? "OK" : "Invalid HTTP Response: " + res.status;
    } catch {
      d.status = "failed to connect to host";
      d.status_code = 0;
    }
  }

  private repoOf(owner: string, name: string): FakeRepo | undefined {
    return this.gh.repos.get(`${owner}/${name}`);
  }

  private pullView(repo: FakeRepo, number: number) {
    const pr = repo.pulls.get(number)!;
    const ref = [...repo.branches].find(([, sha]) => sha === pr.head)?.[0] ?? `pr-${number}`;
    return {
      number,
      state: pr.closed || pr.mergeCommit ? "closed" : "open",
      updated_at: this.updatedAt.get(`${repo.owner}/${repo.name}#${number}`) ?? "2026-01-01T00:00:00Z",
      head: { sha: pr.head, ref },
      base: { ref: repo.defaultBranch, sha: repo.branches.get(repo.defaultBranch) },
    };
  }

  private route(req: Parameters<FakeRoute>[0], send: Parameters<FakeRoute>[1]): boolean {
    const { method: m, path, url } = req;
    let mm: RegExpExecArray | null;
    if (m === "GET" && path === "/app") {
      send(200, { id: 123, slug: this.slug, name: this.slug });
      return true;
    }
    if (m === "GET" && path === "/app/hook/deliveries") {
      const per = Number(url.searchParams.get("per_page") ?? "30");
      const cursor = url.searchParams.get("cursor");
      const newest = [...this.deliveries].reverse().filter((d) => !cursor || d.id < Number(cursor));
      const page = newest.slice(0, per);
      const headers: Record<string, string> = {};
      if (newest.length > per)
        headers.link = `<${this.gh.url}/app/hook/deliveries?per_page=${per}&cursor=${page[page.length - 1]!.id}>; rel="next"`;
      send(
        200,
        page.map(({ payload: _p, ...rest }) => rest),
        headers,
      );
      return true;
    }
    if (m === "POST" && (mm = /^\/app\/hook\/deliveries\/(\d+)\/attempts$/.exec(path))) {
      const first = this.deliveries.find((d) => d.id === Number(mm![1]));
      if (!first) {
        send(404, { message: "Not Found" });
        return true;
      }
      this.redeliveryRequests.push(first.id);
      const again: FakeDelivery = {
        ...first,
        id: ++this.seq,
        delivered_at: this.now().toISOString(),
        redelivery: true,
        status: "pending",
        status_code: 0,
      };
      this.deliveries.push(again);
      // GitHub answers at once and delivers after.
      const p = new Promise<void>((r) => setImmediate(r)).then(() => this.post(again));
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
      send(202, {});
      return true;
    }
    if (
      m === "POST" &&
      (mm = /^\/repos\/[^/]+\/[^/]+\/(issues|pulls)\/comments\/(\d+)\/reactions$/.exec(path))
    ) {
      const content = (req.call.body as { content?: string } | undefined)?.content ?? "";
      this.reactions.push({
        kind: mm[1] === "issues" ? "issue" : "review",
        commentId: Number(mm[2]),
        content,
      });
      send(201, { id: ++this.seq, content });
      return true;
    }
    if (m === "GET" && (mm = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(path))) {
      const repo = this.repoOf(mm[1]!, mm[2]!);
      if (!repo) return false;
      const per = Number(url.searchParams.get("per_page") ?? "30");
      const page = Number(url.searchParams.get("page") ?? "1");
      const open = [...repo.pulls.keys()]
        .map((n) => this.pullView(repo, n))
        .filter((p) => p.state === "open")
        .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
      send(200, open.slice((page - 1) * per, page * per));
      return true;
    }
    if (m === "GET" && (mm = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(path))) {
      const repo = this.repoOf(mm[1]!, mm[2]!);
      if (!repo || !repo.pulls.has(Number(mm[3]))) return false;
      send(200, this.pullView(repo, Number(mm[3])));
      return true;
    }
    return false;
  }
}
