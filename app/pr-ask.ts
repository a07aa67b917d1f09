/**
 * The bundles a pull request touches, read at its head (for `@spec-review ask`): the same
 * partial checkout and selection as its check (app/handlers/pull-request.ts), with the
 * base branch's configuration and profiles.
 */
import { lintTouched } from "../node/pr/lint.js";
import type { AskBundle } from "../server/review/ask.js";
import type { AppDeps } from "./deps.js";
import { changedFiles, readBlob, treeOf, type PullEvent, type PullOctokit } from "./handlers/pull-request.js";
import { partialCheckout } from "./pr-checkout.js";
import { pullProfiles, withBaseConfig } from "./pr-profiles.js";
import { readBundles } from "./pr-review.js";

export async function pullBundlesAtHead(gh: PullOctokit, ev: PullEvent, deps: AppDeps): Promise<AskBundle[]> {
  const changed = await changedFiles(gh, ev);
  const base = ev.baseSha ?? ev.baseRef;
  const tree = withBaseConfig(
    await treeOf(gh, ev, ev.headSha),
    base !== undefined ? await treeOf(gh, ev, base) : undefined,
  );
  const checkout = await partialCheckout(tree, changed, (sha) => readBlob(gh, ev, sha));
  try {
    const { profiles } = pullProfiles(checkout.root, deps.builtinProfilesDir, deps.profiles?.list());
    const results = lintTouched(checkout.root, { changed, profiles });
    return readBundles(checkout.root, results).map((b) => ({
      slug: b.lint.bundle,
      files: b.files,
      mainPath: b.mainPath,
    }));
  } finally {
    checkout.remove();
  }
}
