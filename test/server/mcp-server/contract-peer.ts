/**
 * A stand-in for the operations built on other branches (handoff, threads, verification),
 * answering at their contract paths: each request body must pass the contract's own zod
 * schema (server/schemas/*.ts), else 400 `validation_failed`, and each answer is parsed by
 * the answer's schema before it is sent. It lets the tests show that what the MCP tools send
 * is what those operations take, until they are on main and the tests run on the service.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { z } from "@hono/zod-openapi";
import {
  BuildPacketSchema,
  HandoffBodySchema,
  HandoffReportBodySchema,
  HandoffReportSchema,
} from "../../../server/schemas/handoffs.js";
import { NewThreadBodySchema, ThreadSchema } from "../../../server/schemas/threads.js";
import { VerificationRequestSchema, VerificationRunSchema } from "../../../server/schemas/verifications.js";

export interface PeerRequest {
  method: string;
  path: string;
  authorization?: string;
  body?: unknown;
}

export interface ContractPeer {
  url: string;
  requests: PeerRequest[];
  close(): Promise<void>;
}

const AT = "2026-11-26T10:00:00.000Z";
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) text += (chunk as Buffer).toString("utf8");
  return text === "" ? undefined : (JSON.parse(text) as unknown);
}

/**
 * `packet`: the answer to POST /docs/{docId}/handoff. A verification run answers `queued`
 * to its first `queuedReads` reads, then `done`.
 */
export async function startContractPeer(opts: {
  packet: z.infer<typeof BuildPacketSchema>;
  queuedReads?: number;
}): Promise<ContractPeer> {
  const requests: PeerRequest[] = [];
  const reads = new Map<string, number>();
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "").replace(/^\/api\/v1/, "");
      const body = await bodyOf(req);
      requests.push({
        method: req.method ?? "",
        path,
        ...(req.headers.authorization !== undefined ? { authorization: req.headers.authorization } : {}),
        ...(body !== undefined ? { body } : {}),
      });
      const send = (status: number, value: unknown) =>
        res
          .writeHead(status, {
            "content-type": status >= 400 ? "application/problem+json" : "application/json",
          })
          .end(JSON.stringify(value));
      const checked = (schema: z.ZodType, then: () => void) => {
        const parsed = schema.safeParse(body ?? {});
        if (parsed.success) return then();
        send(400, {
          type: "urn:spec-review:problem:validation_failed",
          title: "Validation failed",
          status: 400,
          code: "validation_failed",
          detail: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
        });
      };
      const route = `${req.method} ${path.split("?")[0]}`;
      let m: RegExpExecArray | null;
      if (route === "GET /bundles") return send(200, { items: [], problems: [] });
      if (new RegExp(`^POST /docs/(${UUID})/handoff$`).test(route))
        return checked(HandoffBodySchema, () => send(200, BuildPacketSchema.parse(opts.packet)));
      if ((m = new RegExp(`^POST /docs/(${UUID})/threads$`).exec(route))) {
        const docId = m[1]!;
        return checked(NewThreadBodySchema, () => {
          const b = NewThreadBodySchema.parse(body);
          const thread = ThreadSchema.parse({
            id: "7a1d3c5e-2b4f-4a6c-8e0d-1f3b5d7f9a2c",
            doc_id: docId,
            anchor_kind: b.anchor_kind,
            anchor: b.anchor,
            addressed_to: b.addressed_to,
            title: b.title,
            ...(b.handoff_id !== undefined ? { handoff_id: b.handoff_id } : {}),
            blocking: b.blocking ?? false,
            status: "open",
            created_by: "Ada",
            created_at: AT,
            last_message_at: AT,
            message_count: 1,
            messages: [
              {
                id: "8b2e4d6f-3c5a-4b7d-9f1e-2a4c6e8a0b3d",
                seq: 1,
                author_kind: "user",
                author_name: "Ada",
                body: b.body,
                sources: [],
                decision: "",
                created_at: AT,
              },
            ],
            answering: b.addressed_to === "ai",
          });
          send(201, thread);
        });
      }
      if ((m = new RegExp(`^POST /handoffs/(${UUID})/report$`).exec(route))) {
        const handoffId = m[1]!;
        return checked(HandoffReportBodySchema, () => {
          const b = HandoffReportBodySchema.parse(body);
          send(
            201,
            HandoffReportSchema.parse({
              id: "9c3f5e7a-4d6b-4c8e-a02f-3b5d7f9b1c4e",
              handoff_id: handoffId,
              result: b.result,
              ...(b.result === "blocked" ? { thread_id: "ad4a6f8b-5e7c-4d9f-b13a-4c6e8a0c2d5f" } : {}),
              created_at: AT,
            }),
          );
        });
      }
      if ((m = new RegExp(`^POST /docs/(${UUID})/verifications$`).exec(route))) {
        const docId = m[1]!;
        return checked(VerificationRequestSchema, () =>
          send(
            202,
            VerificationRunSchema.parse({
              id: "be5b7a9c-6f8d-4eaf-8c24-5d7f9b1d3e6a",
              doc_id: docId,
              status: "queued",
              outcomes: [],
              created_at: AT,
            }),
          ),
        );
      }
      if ((m = new RegExp(`^GET /verifications/(${UUID})$`).exec(route))) {
        const runId = m[1]!;
        const n = (reads.get(runId) ?? 0) + 1;
        reads.set(runId, n);
        const done = n > (opts.queuedReads ?? 0);
        return send(
          200,
          VerificationRunSchema.parse({
            id: runId,
            doc_id: "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
            status: done ? "done" : "queued",
            outcomes: done
              ? [
                  {
                    trace_id: "CHK-1",
                    outcome: "implemented",
                    level: "MUST",
                    provenance: "scan",
                    targets: [{ kind: "code", path: "src/checkout.ts", quote: "// CHK-1", line: 3 }],
                  },
                ]
              : [],
            ...(done ? { verdict: "verified", finished_at: AT } : {}),
            created_at: AT,
          }),
        );
      }
      send(404, {
        type: "urn:spec-review:problem:route_not_found",
        title: "Route not found",
        status: 404,
        code: "route_not_found",
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
