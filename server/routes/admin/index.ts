/** Administration operations under /admin (contract section 5): one router for all of them. */
import { createRouter, type Router } from "../../http.js";
import { stub } from "../stub.js";
import {
  createMcpConnection,
  deleteMcpConnection,
  getRepohostConnection,
  listMcpConnections,
  listMcpTools,
  removeRepohostToken,
  setRepohostToken,
  updateMcpConnection,
} from "./connections.js";
import {
  assignRole,
  createBackend,
  deleteBackend,
  listBackends,
  listPresets,
  listRoles,
  testBackend,
  unassignRole,
  updateBackend,
} from "./models.js";
import {
  createInvite,
  createResetLink,
  getBudget,
  getSettings,
  listInvites,
  putBudget,
  putSettings,
  revokeInvite,
} from "./workspace.js";

export default function adminRoutes(): Router {
  const r = createRouter();
  stub(r, getSettings);
  stub(r, putSettings);
  stub(r, listInvites);
  stub(r, createInvite);
  stub(r, revokeInvite);
  stub(r, createResetLink);
  stub(r, getBudget);
  stub(r, putBudget);
  stub(r, listBackends);
  stub(r, createBackend);
  stub(r, updateBackend);
  stub(r, deleteBackend);
  stub(r, testBackend);
  stub(r, listPresets);
  stub(r, listRoles);
  stub(r, assignRole);
  stub(r, unassignRole);
  stub(r, listMcpConnections);
  stub(r, createMcpConnection);
  stub(r, updateMcpConnection);
  stub(r, deleteMcpConnection);
  stub(r, listMcpTools);
  stub(r, getRepohostConnection);
  stub(r, setRepohostToken);
  stub(r, removeRepohostToken);
  return r;
}
