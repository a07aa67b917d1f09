/** The full AI review (docs/review.md): stages, prompts and their fence, answer schemas and repairs, the step runner and the estimate. */
export * from "./model.js";
export * from "./corpus.js";
export * from "./schemas.js";
export * from "./steps.js";
export * from "./prompts.js";
export * from "./pipeline.js";
export * from "./estimate.js";
export * from "./repair.js";
export * from "./fence.js";
