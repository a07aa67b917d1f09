/**
 * Threads: what is still open on a doc, one thread with its messages, asking a question
 * (a thread for the AI, which answers with sources, or for the people on the bundle), and
 * replying. Paths and bodies are the contract's (2.10, 4.1; server/schemas/threads.ts).
 */
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { MessageSchema, NewThreadBodySchema, ThreadSchema } from "../schemas/threads.js";
import { callApi, seg, type ApiFetch } from "./api.js";
import { Id, answer } from "./results.js";

type Thread = z.infer<typeof ThreadSchema>;
type Message = z.infer<typeof MessageSchema>;
type NewThread = z.infer<typeof NewThreadBodySchema>;

/** The contract's limit on a thread title. */
const TITLE_MAX = 200;

function messageView(m: Message): Record<string, unknown> {
  return {
    id: m.id,
    author: m.author_name,
    author_kind: m.author_kind,
    body: m.body,
    ...(m.sources.length > 0 ? { sources: m.sources } : {}),
    ...(m.decision !== "" ? { decision: m.decision } : {}),
    created_at: m.created_at,
  };
}

export function threadView(t: Thread, withMessages: boolean): Record<string, unknown> {
  return {
    id: t.id,
    title: t.title,
    addressed_to: t.addressed_to,
    status: t.status,
    blocking: t.blocking,
    anchor_kind: t.anchor_kind,
    anchor: t.anchor,
    ...(t.handoff_id !== undefined ? { handoff_id: t.handoff_id } : {}),
    created_by: t.created_by,
    message_count: t.message_count,
    answering: t.answering,
    ...(withMessages ? { messages: t.messages.map(messageView) } : {}),
  };
}

/** A title from the question itself when none is given: its first line, cut to the limit. */
export function titleOf(question: string): string {
  const line = question.trim().split(/\r?\n/, 1)[0]!.trim();
  return line.length <= TITLE_MAX ? line : line.slice(0, TITLE_MAX - 1) + "…";
}

/** The anchor the question names: a finding, a check, or a section (none: the doc as a whole). */
function anchorOf(input: {
  section?: string[] | undefined;
  finding_id?: string | undefined;
  check_slug?: string | undefined;
}): Pick<NewThread, "anchor_kind" | "anchor"> {
  if (input.finding_id !== undefined && input.check_slug !== undefined)
    return {
      anchor_kind: "finding",
      anchor: { finding_id: input.finding_id, check_slug: input.check_slug },
    };
  if (input.check_slug !== undefined)
    return { anchor_kind: "check", anchor: { check_slug: input.check_slug } };
  return { anchor_kind: "section", anchor: { heading_path: input.section ?? [] } };
}

export function registerThreadTools(server: McpServer, api: ApiFetch): void {
  server.registerTool(
    "list_threads",
    {
      title: "List a doc's threads",
      description:
        "Threads on a doc, open first (blocking ones keep the doc from Build Ready). By default only open threads, without their messages; read one with get_thread.",
      inputSchema: {
        doc_id: Id.describe("the doc's id"),
        include_resolved: z.boolean().optional().describe("also list resolved threads"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ doc_id, include_resolved }) =>
      answer(await callApi<{ items: Thread[] }>(api, "GET", `/docs/${seg(doc_id)}/threads`), (list) => ({
        threads: list.items
          .filter((t) => include_resolved === true || t.status === "open")
          .map((t) => threadView(t, false)),
      })),
  );

  server.registerTool(
    "get_thread",
    {
      title: "Read a thread",
      description:
        "A thread with all its messages (an AI answer carries its sources; `answering` is true while the AI is still writing one).",
      inputSchema: { thread_id: Id.describe("the thread's id") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ thread_id }) =>
      answer(await callApi<Thread>(api, "GET", `/threads/${seg(thread_id)}`), (t) => threadView(t, true)),
  );

  server.registerTool(
    "ask_question",
    {
      title: "Ask a question about a doc",
      description:
        "Open a thread on the doc with a question. addressed_to `ai` (default): the AI answers from the bundle, with sources; read the answer with get_thread. `humans`: the people on the bundle answer. Anchor it to a section (heading path), a finding or a check; with none it is about the doc as a whole.",
      inputSchema: {
        doc_id: Id.describe("the doc's id"),
        question: z.string().min(1).describe("the question, in markdown (the thread's first message)"),
        title: z.string().min(1).max(TITLE_MAX).optional().describe("default: the question's first line"),
        addressed_to: z.enum(["ai", "humans"]).optional().describe("default `ai`"),
        section: z
          .array(z.string())
          .optional()
          .describe('heading path of the section asked about, e.g. ["Design", "API"]'),
        finding_id: Id.optional().describe("the finding asked about (with its check_slug)"),
        check_slug: z.string().min(1).optional().describe("the check asked about, or the finding's check"),
        blocking: z.boolean().optional().describe("the doc cannot be Build Ready while this is open"),
        handoff_id: Id.optional().describe("the handoff this question comes from, when building from one"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (input) => {
      // The contract's finding anchor names the finding's check too (get_findings gives it as `check`).
      if (input.finding_id !== undefined && input.check_slug === undefined)
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: "Input validation error: finding_id needs check_slug, the finding's `check` as get_findings lists it",
            },
          ],
        };
      const body: NewThread = {
        ...anchorOf(input),
        addressed_to: input.addressed_to ?? "ai",
        title: input.title ?? titleOf(input.question),
        body: input.question,
        ...(input.blocking !== undefined ? { blocking: input.blocking } : {}),
        ...(input.handoff_id !== undefined ? { handoff_id: input.handoff_id } : {}),
      };
      const result = await callApi<Thread>(api, "POST", `/docs/${seg(input.doc_id)}/threads`, body);
      return answer(result, (t) => threadView(t, true));
    },
  );

  server.registerTool(
    "reply_to_thread",
    {
      title: "Reply in a thread",
      description:
        "Post a message in a thread; in a thread for the AI, the AI answers it (read it with get_thread).",
      inputSchema: {
        thread_id: Id.describe("the thread's id"),
        body: z.string().min(1).describe("the message, in markdown"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ thread_id, body }) =>
      answer(
        await callApi<Message>(api, "POST", `/threads/${seg(thread_id)}/messages`, { body }),
        messageView,
      ),
  );
}
