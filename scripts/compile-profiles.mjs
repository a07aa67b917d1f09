// Part of `npm run build`: the built-in profiles parsed and validated once, into
// dist/profiles.json, so a process starts without parsing their YAML (node/profiles.ts).
import { writeFileSync } from "node:fs";
const { compileProfiles, compiledProfilesPath } = await import("../dist/node/profiles.js");
const { builtinProfilesDir } = await import("../dist/node/package.js");
writeFileSync(compiledProfilesPath(), JSON.stringify(compileProfiles(builtinProfilesDir())));
