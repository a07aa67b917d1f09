export { packageVersion } from "../node/package.js";
