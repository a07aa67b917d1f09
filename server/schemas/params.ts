/**
 * Path parameters of the contract ("Path parameters" paragraph of section 4.1)
 * and small building blocks shared by the family schemas.
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";

export { BundleIdParams, DocIdParams, RunIdParams } from "./common.js";

function uuidParam(name: string) {
  return Uuid.openapi({ param: { name, in: "path" } });
}

function stringParam(name: string, description: string) {
  return (
    z
      .string()
      .min(1)
      .max(200)
      // A NUL cannot be stored or looked up (the database refuses it); no name holds a control character.
      // eslint-disable-next-line no-control-regex
      .regex(/^[^\u0000-\u001f\u007f]*$/, "must not hold control characters")
      .openapi({ param: { name, in: "path" }, description })
  );
}

export const ThreadIdParams = z.object({ threadId: uuidParam("threadId") });
export const BackendIdParams = z.object({ backendId: uuidParam("backendId") });
export const ConnectionIdParams = z.object({ connectionId: uuidParam("connectionId") });
export const InviteIdParams = z.object({ inviteId: uuidParam("inviteId") });
export const WaiverIdParams = z.object({ waiverId: uuidParam("waiverId") });
export const SourceIdParams = z.object({ sourceId: uuidParam("sourceId") });
export const HandoffIdParams = z.object({ handoffId: uuidParam("handoffId") });
export const ReviewIdParams = z.object({ reviewId: uuidParam("reviewId") });
export const RunFindingParams = z.object({ runId: uuidParam("runId"), findingId: uuidParam("findingId") });
export const TokenParams = z.object({ token: stringParam("token", "share link token") });
export const ProfileKeyParams = z.object({ key: stringParam("key", "profile key, e.g. `prd`") });
export const RoleParams = z.object({ role: stringParam("role", "role name, e.g. `reviewer`") });

/** The largest version number a query may name: 2^53 - 1 (numbers are exact JSON numbers up to there). */
export const MAX_VERSION_NUMBER = Number.MAX_SAFE_INTEGER;

/**
 * A version in a query (`version`, `from`, `to`): its id (a uuid, any case) or its number. A
 * number past MAX_VERSION_NUMBER (and so any past int64) is refused here, before it reaches
 * the database.
 */
export const VersionRef = z
  .string()
  .regex(
    /^(\d+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
    "a version id (uuid) or number",
  )
  .refine((v) => !/^\d+$/.test(v) || BigInt(v) <= BigInt(MAX_VERSION_NUMBER), {
    message: `a version number is at most ${MAX_VERSION_NUMBER}`,
  })
  .optional()
  .openapi({ description: "version id (uuid) or version number; default: the current version" });

/** An int64 (contract type `integer int64`); JSON numbers, exact up to 2^53. */
export function int64() {
  return z.int().openapi({ format: "int64" });
}

/** Query of a write: `base_version`, the version the change is based on (contract 4.2, rule 7.1), and more. */
export function withBaseVersion<T extends z.ZodRawShape>(shape: T) {
  return z.object({
    base_version: Uuid.openapi({
      description:
        "the version the change is based on; a newer current version fails with `version_conflict`",
    }),
    ...shape,
  });
}

export const BaseVersionQuery = withBaseVersion({});

/** A list answer: `items`, and `next_cursor` when there are more (same shape as the bundle list). */
export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      next_cursor: z.string().optional().openapi({ description: "pass as `cursor` for the next page" }),
    })
    .openapi(name);
}

/**
 * `archived=true`: a list where bundles appear takes archived bundles too (their repohost
 * source was deleted); by default it leaves them out (docs/api-decisions.md).
 */
export const ArchivedParam = z.enum(["true", "false"]).optional().openapi({
  description:
    "`true`: include archived bundles (whose repohost source was deleted), which the list leaves out by default",
});

/** Query of a paged list. */
export const PageQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
