export { packageVersion } from "../server/paths.js";
