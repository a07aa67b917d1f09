/**
 * Threads for the AI: the reviewer role's model (a real local OpenAI-compatible server)
 * answers from the bundle and its linked bundle, with sources that exist in them; the
 * thread shows `answering` while it writes; the owner's inbox gets the answer. Without a
 * model, or when the model fails, the message is kept and the thread says why.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { DB_KINDS, json, makeTestApp, type TestApp } from "../../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../helpers/fake-openai.js";
import { configureModels } from "../../core/review/e2e-helpers.js";
import type { SpecDoc } from "../../helpers/types.js";
import type { ThreadSchema } from "../../../server/schemas/threads.js";
import { inboxItems } from "../../../server/db/schema.js";
import { PRD, docBySlug, payoutsFolder, textAnchor } from "./fixture.js";

type Thread = z.infer<typeof ThreadSchema>;

describe.each(DB_KINDS)("AI answers in threads on %s", (kind) => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let doc: SpecDoc;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    fake.reset();
    fake.handler = undefined;
    t = await makeTestApp({ kind, fixture: payoutsFolder(), modelTimeoutMs: 5_000 });
    await t.runs.idle();
    doc = await docBySlug(t, "payouts");
  });
  afterEach(async () => {
    await t.close();
  });

  const askAi = async (body: string) => {
    const res = await t.req("POST", `/docs/${doc.id}/threads`, {
      anchor_kind: "text",
      anchor: textAnchor("prd.md", PRD, "within 2 business days"),
      addressed_to: "ai",
      title: "Where do balances come from?",
      body,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return json<Thread>(res);
  };
  const read = (id: string) => json<Thread>(t.req("GET", `/threads/${id}`));

  it("answers with sources found in the bundle and its linked bundle, dropping quotes that are not there", async () => {
    await configureModels(t, fake.baseUrl);
    fake.handler = (req) => ({
      delayMs: 150,
      json:
        req.body.response_format?.json_schema?.name === "thread_answer"
          ? {
              answer:
                "From the ledger: the balance is the sum of settled entries, paid out within 2 business days.",
              quotes: [
                "the balance is the sum of settled entries",
                "Payouts MUST reach the seller within 2 business days.",
                "Payouts are instant for premium sellers",
              ],
            }
          : {},
    });
    const th = await askAi("How is the balance computed, and how fast is it paid? 🤔");
    // The POST does not wait for the model: the thread says the AI is writing.
    expect(th.answering).toBe(true);
    expect(th.messages).toHaveLength(1);

    await t.services.threads.answered(th.id);
    const done = await read(th.id);
    expect(done.answering).toBe(false);
    expect(done.ai_error).toBeUndefined();
    expect(done.message_count).toBe(2);
    expect(done.messages[1]).toMatchObject({
      seq: 2,
      author_kind: "ai",
      author_name: "AI reviewer",
      body: expect.stringContaining("sum of settled entries") as unknown,
      sources: [
        "the balance is the sum of settled entries",
        "Payouts MUST reach the seller within 2 business days.",
      ],
      decision: "",
    });
    // The model read the linked design and the thread, fenced as data, with the reviewer's model.
    const call = fake.completions.find((r) => r.body.response_format?.json_schema?.name === "thread_answer")!;
    expect(call.body.model).toBe("reviewer-model");
    expect(call.prompt).toContain("Every payout is a ledger entry");
    expect(call.prompt).toContain("How is the balance computed");
    expect(call.prompt).toMatch(/<spec_text_0 part="thread">/);
    // The owner's inbox has the answer.
    const inbox = await t.database.db.select().from(inboxItems).where(eq(inboxItems.threadId, th.id));
    expect(inbox).toEqual([
      expect.objectContaining({
        userId: "admin",
        kind: "ai_answer",
        messageId: done.messages[1]!.id,
        actorId: "ai",
      }),
    ]);

    // A follow-up is answered too, in order, with the whole thread as context.
    const res = await t.req("POST", `/threads/${th.id}/messages`, { body: "And for a failed payout?" });
    expect(res.status).toBe(201);
    expect((await read(th.id)).answering).toBe(true);
    await t.services.threads.answered(th.id);
    const again = await read(th.id);
    expect(again.messages.map((m) => m.author_kind)).toEqual(["user", "ai", "user", "ai"]);
    expect(again.answering).toBe(false);
  });

  it("without a model keeps the message and says so; a failing model is reported; nothing hangs", async () => {
    const th = await askAi("Is 2 business days counted from the sale?");
    await t.services.threads.answered(th.id);
    let got = await read(th.id);
    expect(got.answering).toBe(false);
    expect(got.messages.map((m) => m.body)).toEqual(["Is 2 business days counted from the sale?"]);
    expect(got.ai_error).toMatch(
      /No model is configured for the reviewer role.*PUT \/admin\/roles\/reviewer/,
    );
    expect(fake.completions).toHaveLength(0);

    await configureModels(t, fake.baseUrl);
    fake.handler = () => ({
      status: 400,
      body: { error: { message: "model not found", type: "invalid_request_error" } },
    });
    expect((await t.req("POST", `/threads/${th.id}/messages`, { body: "Anyone?" })).status).toBe(201);
    await t.services.threads.answered(th.id);
    got = await read(th.id);
    expect(got.answering).toBe(false);
    expect(got.message_count).toBe(2);
    expect(got.ai_error).toMatch(/^model_failed: /);

    // Once the model answers, the note goes.
    fake.handler = () => ({ json: { answer: "From the sale.", quotes: [] } });
    await t.req("POST", `/threads/${th.id}/messages`, { body: "Try again?" });
    await t.services.threads.answered(th.id);
    got = await read(th.id);
    expect(got.ai_error).toBeUndefined();
    expect(got.messages.at(-1)).toMatchObject({ author_kind: "ai", body: "From the sale.", sources: [] });
  });

  it("answers two quick messages in turn, answering until the last answer is written", async () => {
    await configureModels(t, fake.baseUrl);
    let n = 0;
    fake.handler = () => ({ delayMs: 200, json: { answer: `Answer ${++n}`, quotes: [] } });
    const th = await askAi("First question?");
    expect((await t.req("POST", `/threads/${th.id}/messages`, { body: "Second question?" })).status).toBe(
      201,
    );
    // Wait for the first answer: the second is still to come.
    for (let i = 0; i < 200 && (await read(th.id)).message_count < 3; i++)
      await new Promise((r) => setTimeout(r, 20));
    const between = await read(th.id);
    expect(between.messages.map((m) => m.body)).toEqual(["First question?", "Second question?", "Answer 1"]);
    expect(between.answering).toBe(true);
    await t.services.threads.answered(th.id);
    const done = await read(th.id);
    expect(done.messages.map((m) => m.body)).toEqual([
      "First question?",
      "Second question?",
      "Answer 1",
      "Answer 2",
    ]);
    expect(done.answering).toBe(false);
  });
});
