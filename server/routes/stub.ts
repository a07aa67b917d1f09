/**
 * Operations of the contract that are routed and documented but not built yet.
 *
 * `stub(r, route)` puts the route's full definition (request and response schemas)
 * in the OpenAPI document and mounts a plain handler that answers 501
 * `not_implemented`. No validator runs first: a stub answers 501 whatever the
 * body, query or ids, so `api-coverage` never mistakes a 400 for a built operation.
 *
 * Building one later: replace `stub(r, someRoute)` by
 * `r.openapi(someRoute, (c) => { ... })` in the family's index.ts; the same
 * definition then validates the request and types the handler.
 */
import { z, type RouteConfig } from "@hono/zod-openapi";
import { notImplemented, type Router } from "../http.js";

/** OpenAPI extension that marks an operation answering 501 until it is built. */
export const NOT_IMPLEMENTED_EXTENSION = "x-not-implemented";

export function stub(r: Router, route: RouteConfig): void {
  const note = "Not built yet: answers 501 `not_implemented`.";
  r.openAPIRegistry.registerPath({
    ...route,
    description: route.description ? `${route.description}\n\n${note}` : note,
    [NOT_IMPLEMENTED_EXTENSION]: true,
  });
  r.on(route.method.toUpperCase(), route.path.replace(/\{(\w+)\}/g, ":$1"), (c) => notImplemented(c));
}

/** Answers that are not JSON. */
export function htmlResponse(description: string) {
  return { description, content: { "text/html": { schema: z.string() } } } as const;
}

export function eventStreamResponse(description: string) {
  return {
    description,
    content: {
      "text/event-stream": {
        schema: z.string().openapi({
          description: "server-sent events; event names and payloads: see docs/review.md",
        }),
      },
    },
  } as const;
}

export function zipResponse(description: string) {
  return {
    description,
    content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
  } as const;
}

export function noContent(description: string) {
  return { description } as const;
}
