/**
 * Building blocks of the route modules: a router whose validation failures are
 * problem+json, response helpers, and the 501 handler for operations not built yet.
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ProblemSchema } from "./schemas/common.js";
import { NotImplementedError, ValidationError, type FieldIssue } from "./errors.js";
import type { Deps } from "./deps.js";
import type { Actor } from "./auth/actor.js";

/** `actor`: the caller, put there by the actor middleware (undefined for an anonymous caller). */
export type Env = { Variables: { deps: Deps; actor: Actor | undefined } };
export type Router = OpenAPIHono<Env>;

export function zodIssues(error: z.ZodError, target: string): FieldIssue[] {
  return error.issues.map((i) => ({
    field: [target, ...i.path.map(String)].join("."),
    message: i.message,
  }));
}

const TARGET_NAMES: Record<string, string> = { json: "body", form: "body", param: "path", query: "query" };

export function createRouter(): Router {
  return new OpenAPIHono<Env>({
    defaultHook: (result) => {
      if (!result.success) {
        const target = TARGET_NAMES[result.target] ?? result.target;
        const errors = zodIssues(result.error, target);
        throw new ValidationError(
          `invalid ${target}: ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`,
          errors,
        );
      }
    },
  });
}

/** The error answers every operation may give (contract section 7). */
export const errorResponses = {
  400: { description: "Invalid request", content: { "application/problem+json": { schema: ProblemSchema } } },
  404: { description: "Not found", content: { "application/problem+json": { schema: ProblemSchema } } },
  409: { description: "Conflict", content: { "application/problem+json": { schema: ProblemSchema } } },
  501: {
    description: "Not implemented yet",
    content: { "application/problem+json": { schema: ProblemSchema } },
  },
} as const;

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } } as const;
}

export function jsonBody<T extends z.ZodType>(schema: T, description = "JSON body") {
  return { required: true, description, content: { "application/json": { schema } } } as const;
}

/** Handler of an operation that is routed and documented but not built yet. */
export function notImplemented(c: Context): never {
  throw new NotImplementedError(
    c.req.method,
    c.req.routePath.replace(/:(\w+)/g, "{$1}").replace(/^\/api\/v1/, ""),
  );
}

export function deps(c: Context<Env>): Deps {
  return c.get("deps");
}
