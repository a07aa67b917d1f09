/**
 * What the waivers area needs from features built elsewhere. The integrator wires the real
 * ones in server/services.ts; until then the defaults say "none".
 */
import type { Actor } from "../auth/actor.js";

export interface ThreadsPort {
  /**
   * Open threads of these docs that wait for a decision the caller can make (for
   * `next_action` kind `decide`), oldest first per doc. Default: none.
   */
  threadsToDecide(
    actor: Actor,
    docIds: readonly string[],
  ): Promise<Map<string, Array<{ id: string; title: string }>>>;
}

export const noThreads: ThreadsPort = {
  threadsToDecide: () => Promise.resolve(new Map()),
};
