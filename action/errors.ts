/** Moved to node/pr/errors.ts, shared with the GitHub App (app/); the Action imports it from here. */
export * from "../node/pr/errors.js";
