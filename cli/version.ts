import { readFileSync } from "node:fs";
import { packageRoot } from "../server/paths.js";
import { join } from "node:path";

let cached: string | undefined;
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
  return cached;
}
