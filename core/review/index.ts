/** The full AI review (docs/review.md): stages, prompts, answer schemas, the step runner and the estimate. */
export * from "./model.js";
export * from "./corpus.js";
export * from "./schemas.js";
export * from "./steps.js";
export * from "./prompts.js";
export * from "./pipeline.js";
export * from "./estimate.js";
