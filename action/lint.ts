/** Moved to node/pr/lint.ts, shared with the GitHub App (app/); the Action imports it from here. */
export * from "../node/pr/lint.js";
