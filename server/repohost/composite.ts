/**
 * Hosted mode with repohost sources: one BundleStore over two, the database store (`db`
 * bundles, made through the API) and the repohost store (bundles read from repos). Each
 * call goes to the store whose bundle it names (a bundle's source kind never changes, so
 * the answer is remembered); lists merge both by slug; events of both are passed on.
 */
import { EventEmitter } from "node:events";
import { eq } from "drizzle-orm";
import type { DiscoveryProblem } from "../../core/bundle/discover.js";
import type { Db } from "../db/index.js";
import { bundles, docs, versions } from "../db/schema.js";
import { NotFoundError } from "../errors.js";
import type {
  BundleStore,
  DiffInputs,
  DismissedDoc,
  DocRecord,
  FileChange,
  FileEntry,
  Limits,
  ListedFile,
  SourceKind,
  StoreEvents,
  VersionRecord,
  WriteResult,
} from "../store/types.js";
import type { RepohostStore } from "./store.js";

export class CompositeStore implements BundleStore {
  readonly events = new EventEmitter<StoreEvents>();
  private readonly kinds = new Map<string, SourceKind>();
  private readonly forward = {
    version: (e: StoreEvents["version"][0]) => this.events.emit("version", e),
    changed: (e: StoreEvents["changed"][0]) => this.events.emit("changed", e),
  };

  constructor(
    private readonly db: Db,
    readonly primary: BundleStore,
    readonly repohost: RepohostStore,
  ) {
    for (const s of [primary, repohost]) {
      s.events.on("version", this.forward.version);
      s.events.on("changed", this.forward.changed);
    }
  }

  private pick(kind: SourceKind): BundleStore {
    return kind === "repohost" ? this.repohost : this.primary;
  }

  private async byBundle(bundleId: string): Promise<BundleStore> {
    let kind = this.kinds.get(bundleId);
    if (!kind) {
      const [row] = await this.db
        .select({ k: bundles.sourceKind })
        .from(bundles)
        .where(eq(bundles.id, bundleId));
      if (!row) throw new NotFoundError("bundle", bundleId);
      kind = row.k;
      this.kinds.set(bundleId, kind);
    }
    return this.pick(kind);
  }

  private async byDoc(docId: string): Promise<BundleStore> {
    const [row] = await this.db
      .select({ k: bundles.sourceKind })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(eq(docs.id, docId));
    if (!row) throw new NotFoundError("doc", docId);
    return this.pick(row.k);
  }

  private async byVersion(versionId: string): Promise<BundleStore> {
    const [row] = await this.db
      .select({ k: bundles.sourceKind })
      .from(versions)
      .innerJoin(bundles, eq(bundles.id, versions.bundleId))
      .where(eq(versions.id, versionId));
    // An unknown version: the primary store answers as it always has.
    return row ? this.pick(row.k) : this.primary;
  }

  async start(): Promise<void> {
    await this.primary.start();
    await this.repohost.start();
  }
  async stop(): Promise<void> {
    for (const s of [this.primary, this.repohost]) {
      s.events.off("version", this.forward.version);
      s.events.off("changed", this.forward.changed);
    }
    await this.repohost.stop();
    await this.primary.stop();
  }
  currentLimits(): Promise<Limits> {
    return this.primary.currentLimits();
  }

  async listBundles(opts: { limit: number; after?: string; archived?: boolean }): Promise<DocRecord[]> {
    const [a, b] = await Promise.all([this.primary.listBundles(opts), this.repohost.listBundles(opts)]);
    return [...a, ...b]
      .sort((x, y) => (x.bundle.slug < y.bundle.slug ? -1 : x.bundle.slug > y.bundle.slug ? 1 : 0))
      .slice(0, opts.limit);
  }
  async bundlesByIds(ids: readonly string[]): Promise<DocRecord[]> {
    const [a, b] = await Promise.all([this.primary.bundlesByIds(ids), this.repohost.bundlesByIds(ids)]);
    return [...a, ...b];
  }
  async bundle(bundleId: string): Promise<DocRecord> {
    return (await this.byBundle(bundleId)).bundle(bundleId);
  }
  async doc(docId: string): Promise<DocRecord> {
    return (await this.byDoc(docId)).doc(docId);
  }
  async bundleIdOfDoc(docId: string): Promise<string> {
    return (await this.byDoc(docId)).bundleIdOfDoc(docId);
  }
  async refreshBundle(bundleId: string): Promise<void> {
    return (await this.byBundle(bundleId)).refreshBundle(bundleId);
  }
  problems(): DiscoveryProblem[] {
    return [...this.primary.problems(), ...this.repohost.problems()];
  }
  async bundleStats(bundleId: string): Promise<{ versions: number; files: number; bytes: number }> {
    return (await this.byBundle(bundleId)).bundleStats(bundleId);
  }
  async deleteBundle(bundleId: string): Promise<{ files: number }> {
    return (await this.byBundle(bundleId)).deleteBundle(bundleId);
  }
  nameTaken(name: string): Promise<boolean> {
    return this.primary.nameTaken(name);
  }
  addFolder(
    name: string,
    files: ReadonlyMap<string, Uint8Array>,
    opts?: { author?: string },
  ): Promise<string[]> {
    return this.primary.addFolder(name, files, opts);
  }

  async resolveVersion(bundleId: string, ref?: string): Promise<VersionRecord> {
    return (await this.byBundle(bundleId)).resolveVersion(bundleId, ref);
  }
  async versions(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]> {
    return (await this.byBundle(bundleId)).versions(bundleId, opts);
  }
  async files(versionId: string): Promise<ListedFile[]> {
    return (await this.byVersion(versionId)).files(versionId);
  }
  async manifest(versionId: string): Promise<FileEntry[]> {
    return (await this.byVersion(versionId)).manifest(versionId);
  }
  async fileBytes(versionId: string, path: string): Promise<{ entry: FileEntry; bytes: Uint8Array }> {
    return (await this.byVersion(versionId)).fileBytes(versionId, path);
  }
  async snapshot(versionId: string): Promise<Map<string, Uint8Array>> {
    return (await this.byVersion(versionId)).snapshot(versionId);
  }
  async diffInputs(fromVersionId: string, toVersionId: string): Promise<DiffInputs> {
    return (await this.byVersion(toVersionId)).diffInputs(fromVersionId, toVersionId);
  }
  async hasFile(docId: string, path: string): Promise<boolean> {
    return (await this.byDoc(docId)).hasFile(docId, path);
  }
  async write(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
  ): Promise<WriteResult> {
    return (await this.byDoc(docId)).write(docId, base, changes, author, message);
  }
  async rename(docId: string, base: string, from: string, to: string, author: string): Promise<WriteResult> {
    return (await this.byDoc(docId)).rename(docId, base, from, to, author);
  }

  skipped(): Promise<string[]> {
    return this.primary.skipped();
  }
  adoptSkipped(
    picks: Array<{ path: string; profile: string }>,
    write: (text: string, type: string) => string,
  ): Promise<string[]> {
    return this.primary.adoptSkipped(picks, write);
  }
  dismissed(): Promise<DismissedDoc[]> {
    return this.primary.dismissed();
  }
  dismiss(path: string, by: string): Promise<DismissedDoc> {
    return this.primary.dismiss(path, by);
  }
  undismiss(path: string): Promise<boolean> {
    return this.primary.undismiss(path);
  }
}
