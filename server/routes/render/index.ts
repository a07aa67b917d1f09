import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse } from "../../http.js";

const RenderBody = z
  .object({
    markdown: z
      .string()
      .max(10 * 1024 * 1024)
      .openapi({ description: "markdown text, frontmatter allowed" }),
  })
  .openapi("RenderRequest");

const RenderResult = z
  .object({
    html: z.string().openapi({
      description:
        "HTML; each block element has data-source-start/-end (UTF-8 byte offsets into the text) and data-source-line/-end-line",
    }),
  })
  .openapi("RenderResult");

export default function renderRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: "post",
      path: "/render",
      summary: "render markdown to HTML; each block carries its source position",
      tags: ["render"],
      request: { body: jsonBody(RenderBody) },
      responses: { 200: jsonResponse(RenderResult, "The HTML"), ...errorResponses },
    }),
    // A large text renders on a worker thread, so other requests keep being answered.
    async (c) => c.json({ html: await deps(c).heavy.renderMarkdown(c.req.valid("json").markdown) }, 200),
  );
  return r;
}
