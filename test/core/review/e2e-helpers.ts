/** Helpers of the end-to-end review tests (test/server/review-*.test.ts). */
import { expect } from "vitest";
import type { z } from "@hono/zod-openapi";
import { json, type TestApp } from "../../helpers/app.js";
import type { RecordedRequest } from "../../helpers/fake-openai.js";
import type { Items, SpecDoc } from "../../helpers/types.js";
import type { RunSchema } from "../../../server/schemas/runs.js";
import { scriptedAnswer } from "./scripted-model.js";

type Run = z.infer<typeof RunSchema>;

/** The fake OpenAI server's handler: the scripted answer for the request's schema. */
export function answerFor(req: RecordedRequest) {
  const rf = req.body.response_format?.json_schema;
  return { json: scriptedAnswer(rf?.name ?? "", req.prompt, rf?.schema) };
}

/** A fake backend for every review role; `headers` say who asks (tests with several callers). */
export async function configureModels(
  t: TestApp,
  baseUrl: string,
  prices = true,
  headers: Record<string, string> = {},
): Promise<void> {
  const res = await t.req(
    "POST",
    "/admin/backends",
    { kind: "provider_1", name: "fake", base_url: baseUrl, secret: "sk-test-0000" },
    headers,
  );
  expect(res.status, await res.clone().text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  for (const role of ["reviewer", "reader", "judge"]) {
    const r = await t.req(
      "PUT",
      `/admin/roles/${role}`,
      {
        backend_id: id,
        model: `${role}-model`,
        ...(prices ? { price_in_per_mtok: 1, price_out_per_mtok: 2 } : {}),
      },
      headers,
    );
    expect(r.status, await r.clone().text()).toBe(200);
  }
}

export async function docIdOf(t: TestApp): Promise<string> {
  const list = await json<Items<{ docs: SpecDoc[] }>>(t.req("GET", "/bundles"));
  return list.items[0]!.docs[0]!.id;
}

/** Wait until the run is done or failed. */
export async function settle(t: TestApp, runId: string, ms = 20_000): Promise<Run> {
  const until = Date.now() + ms;
  for (;;) {
    const run = await json<Run>(t.req("GET", `/runs/${runId}`));
    if (run.status === "done" || run.status === "failed") return run;
    if (Date.now() > until) throw new Error(`run ${runId} is still ${run.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Sse {
  id?: string;
  event: string;
  data: unknown;
}

/** Read a whole event stream (it closes when the run ends). */
export async function readSse(res: Response): Promise<{ events: Sse[]; comments: string[] }> {
  const text = await res.text();
  const events: Sse[] = [];
  const comments: string[] = [];
  for (const chunk of text.split("\n\n")) {
    if (chunk.trim() === "") continue;
    const ev: Partial<Sse> & { lines: string[] } = { lines: [] };
    for (const line of chunk.split("\n")) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim());
      else if (line.startsWith("id:")) ev.id = line.slice(3).trim();
      else if (line.startsWith("event:")) ev.event = line.slice(6).trim();
      else if (line.startsWith("data:")) ev.lines.push(line.slice(5).trim());
    }
    if (ev.event)
      events.push({ id: ev.id, event: ev.event, data: JSON.parse(ev.lines.join("\n")) as unknown });
  }
  return { events, comments };
}
