// `npm start` and `npm run dev` serve a working copy of the demo bundles, never the
// tracked fixtures/demo itself: a save through the API edits files and the embedded
// database lands in the served folder, so serving the tracked copy would change the
// repository. The copy is made once, into tmp/demo (ignored by git); delete it to start over.
import { cpSync, existsSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "fixtures", "demo");
const target = join(root, "tmp", "demo");
if (!existsSync(target)) {
  cpSync(source, target, {
    recursive: true,
    // Leave out anything a server ever wrote into the tracked copy.
    filter: (path) => !path.slice(source.length).split(sep).includes(".spec-review"),
  });
  process.stderr.write(
    "copied fixtures/demo to tmp/demo: npm start serves the copy (delete it to start over)\n",
  );
}
