/** Traceability: links, trace IDs, matrices, link suggestions (docs/trace.md). */
export * from "./links.js";
export * from "./ids.js";
export * from "./edit.js";
export * from "./graph.js";
export * from "./suggest.js";
export * from "./doc.js";
