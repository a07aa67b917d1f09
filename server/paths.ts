/** spec-review's own package root and version: one copy, in node/package.ts. */
export { packageRoot, packageVersion } from "../node/package.js";
