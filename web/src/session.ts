/** Who is looking, and in which mode the server runs: read once from GET /me, refreshed after sign-in. */
import { createContext } from "preact";
import type { Schemas } from "./api/client";

export interface Session {
  me?: Schemas["Me"];
  refresh: () => void;
}

export const SessionContext = createContext<Session>({ refresh: () => {} });

export const isAdmin = (me: Schemas["Me"] | undefined) => me?.mode === "local" || me?.user?.role === "admin";
