/**
 * Every resource family of the contract, one module each. Each module returns a
 * router of its operations; operations not built yet answer 501 `not_implemented`.
 */
import type { Router } from "../http.js";
import meta from "./meta/index.js";

export const routeFamilies: Array<() => Router> = [meta];
