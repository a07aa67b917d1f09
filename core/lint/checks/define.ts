import type { z } from "zod";
import type { CheckKind } from "../types.js";

/** Declare a check kind with its options schema, keeping the params type. */
export function defineCheck<S extends z.ZodType>(kind: CheckKind<S>): CheckKind<S> {
  return kind;
}
