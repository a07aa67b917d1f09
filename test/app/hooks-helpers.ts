/**
 * The App under test reached over HTTP, as GitHub reaches it: a listener that verifies
 * each delivery's signature and hands it to the App's Probot (the fake GitHub's
 * deliveries and redeliveries, test/helpers/fake-github-hooks.ts, are POSTed to it).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Probot } from "probot";
import { appAuth } from "../../app/main.js";
import { Reconciler, type ReconcileOptions } from "../../app/reconcile.js";
import type { AppHarness } from "./helpers.js";

export async function webhookServer(probot: Probot): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      probot.webhooks
        .verifyAndReceive({
          id: String(req.headers["x-github-delivery"]),
          name: String(req.headers["x-github-event"]),
          payload: Buffer.concat(chunks).toString("utf8"),
          signature: String(req.headers["x-hub-signature-256"]),
        })
        .then(
          () => res.writeHead(200).end("ok"),
          () => res.writeHead(500).end("failed"),
        );
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** A reconciliation of the harness's App (the one `spec-review app` starts on its own). */
export function reconcilerOf(h: AppHarness, opts: ReconcileOptions = {}): Reconciler {
  return new Reconciler(appAuth(h.probot), h.deps, opts);
}

/** An `issue_comment` `created` on pull request `pull` of acme/specs, as GitHub sends it. */
export function issueComment(o: {
  id: number;
  body: string;
  login: string;
  association?: string;
  pull?: number;
  type?: "User" | "Bot";
  action?: string;
}): Record<string, unknown> {
  const pull = o.pull ?? 7;
  return {
    action: o.action ?? "created",
    issue: {
      number: pull,
      title: "Quote API: document errors",
      state: "open",
      pull_request: { url: `https://api.github.com/repos/acme/specs/pulls/${pull}` },
      user: { login: "dana", id: 5501, type: "User" },
    },
    comment: {
      id: o.id,
      body: o.body,
      user: { login: o.login, id: 6000 + o.id, type: o.type ?? "User" },
      author_association: o.association ?? "NONE",
      created_at: "2026-11-20T09:10:00Z",
      updated_at: "2026-11-20T09:10:00Z",
      html_url: `https://github.com/acme/specs/pull/${pull}#issuecomment-${o.id}`,
    },
    repository: {
      id: 812345,
      name: "specs",
      full_name: "acme/specs",
      private: true,
      owner: { login: "acme" },
    },
    sender: { login: o.login, id: 6000 + o.id, type: o.type ?? "User" },
    installation: { id: 42 },
  };
}
