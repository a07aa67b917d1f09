/** Moved to node/pr/glob.ts, shared with the GitHub App (app/); the Action imports it from here. */
export * from "../node/pr/glob.js";
