/** Moved to node/pr/report.ts, shared with the GitHub App (app/); the Action imports it from here. */
export * from "../node/pr/report.js";
