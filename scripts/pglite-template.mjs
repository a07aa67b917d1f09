// Part of `npm run build`: ships a migrated, empty PGlite database inside the package
// (dist/pglite/), so a new data folder starts without initdb (server/db/pglite-template.ts).
import { fileURLToPath } from "node:url";

process.env.SPEC_REVIEW_CACHE_DIR = fileURLToPath(new URL("../dist/pglite", import.meta.url));
const { openDatabase } = await import("../dist/server/db/index.js");
const database = await openDatabase("memory://");
await database.close();
