/**
 * Every resource family of the contract, one module each. Each module returns a
 * router of its operations; operations not built yet answer 501 `not_implemented`.
 */
import type { Router } from "../http.js";
import meta from "./meta/index.js";
import share from "./share/index.js";
import access from "./access/index.js";
import handoffs from "./handoffs/index.js";
import verifications from "./verifications/index.js";
import runs from "./runs/index.js";
import trace from "./trace/index.js";
import threads from "./threads/index.js";
import waivers from "./waivers/index.js";
import status from "./status/index.js";
import profiles from "./profiles/index.js";
import admin from "./admin/index.js";
import repohost from "./repohost/index.js";
import bundles from "./bundles/index.js";
import docs from "./docs/index.js";
import skipped from "./skipped/index.js";
import render from "./render/index.js";
import auth from "./auth/index.js";

export const routeFamilies: Array<() => Router> = [
  meta,
  auth,
  bundles,
  docs,
  skipped,
  render,
  share,
  access,
  handoffs,
  verifications,
  runs,
  trace,
  threads,
  waivers,
  status,
  profiles,
  admin,
  repohost,
];
