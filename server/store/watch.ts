/**
 * Watching the served folder for edits by other programs. Events are debounced into
 * one rescan; the echo of the store's own writes (same mtime) is ignored.
 */
import { statSync } from "node:fs";
import type { Logger } from "../deps.js";

export class FolderWatcher {
  private watcher: { close(): Promise<void> } | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Absolute path -> mtime (ms) of the files the store wrote, to ignore their echo. */
  private readonly ownWrites = new Map<string, number>();
  /** Absolute paths of folders the store made (a new bundle folder), to ignore their `addDir`. */
  private readonly ownDirs = new Set<string>();
  /**
   * Files the store is writing now: their events can arrive before the write is done (and
   * its mtime known), so they wait here until `wrote` says whether they were the echo.
   */
  private readonly writing = new Map<string, Array<{ event: string }>>();

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
    private readonly rescan: () => Promise<void>,
  ) {}

  async start(): Promise<void> {
    const { watch } = await import("chokidar");
    const w = watch(this.root, {
      ignoreInitial: true,
      ignored: (path: string) => {
        const rel = path.slice(this.root.length + 1);
        return rel !== "" && rel.split("/").some((seg) => seg.startsWith(".") || seg === "node_modules");
      },
    });
    w.on("all", (event: string, path: string) => {
      const held = this.writing.get(path);
      if (held) held.push({ event });
      else if (!this.isOwnWrite(event, path)) this.schedule();
    });
    w.on("error", (err) => this.logger.warn("watcher error", { error: String(err) }));
    await new Promise<void>((resolve) => w.once("ready", () => resolve()));
    this.watcher = w;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    this.watcher = undefined;
  }

  /** The store starts writing a file: hold its events until `wrote`. */
  willWrite(absPath: string): void {
    if (!this.writing.has(absPath)) this.writing.set(absPath, []);
  }

  /**
   * The store wrote a file (`mtimeMs`), or gave up (undefined): its held events count
   * unless they are the echo of this write.
   */
  wrote(absPath: string, mtimeMs?: number): void {
    const held = this.writing.get(absPath) ?? [];
    this.writing.delete(absPath);
    if (mtimeMs !== undefined) this.ownWrites.set(absPath, mtimeMs);
    if (held.some(({ event }) => !this.isOwnWrite(event, absPath))) this.schedule();
  }

  /** Remember a folder the store made itself. */
  madeDir(absPath: string): void {
    this.ownDirs.add(absPath);
  }

  /**
   * True when a watcher event is only the echo of a file the store just wrote (same
   * mtime): rescanning the whole folder for it would find nothing new.
   */
  private isOwnWrite(event: string, path: string): boolean {
    if (event === "addDir" && this.ownDirs.delete(path)) return true;
    const mtimeMs = this.ownWrites.get(path);
    if (mtimeMs === undefined || (event !== "change" && event !== "add")) return false;
    try {
      if (Math.floor(statSync(path).mtimeMs) === mtimeMs) return true;
    } catch {
      /* gone since: a change to scan */
    }
    this.ownWrites.delete(path);
    return false;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.rescan().catch((err: unknown) => this.logger.error("rescan failed", { error: String(err) }));
    }, 75);
  }
}
