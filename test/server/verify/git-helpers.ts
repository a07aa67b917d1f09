/** Real git repositories and folders in temp dirs for verification tests. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Dev",
  GIT_AUTHOR_EMAIL: "dev@example.com",
  GIT_COMMITTER_NAME: "Dev",
  GIT_COMMITTER_EMAIL: "dev@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: tmpdir(),
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { env: ENV, encoding: "utf8" }).trim();
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

export function tempFolder(prefix = "sr-verify-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A repository on `main` with one commit of `files`; answers its folder. */
export function makeRepo(files: Record<string, string | Buffer>): string {
  const dir = tempFolder("sr-repo-");
  git(dir, "init", "-q", "-b", "main");
  writeFiles(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "first");
  return dir;
}

export function commitAll(dir: string, message: string): string {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

/** Code of a gift-card service citing the PRD's IDs the ways teams do. */
export const SHOP_CODE: Record<string, string> = {
  "src/redeem.ts": [
    "import { lookup } from './cards';",
    "",
    "// REQ-001: card number and PIN on the payment step",
    "export function redeem(number: string, pin: string) {",
    "  if (!/^\\d{16}$/.test(number) || !/^\\d{4}$/.test(pin)) throw new Error('bad card');",
    "  return lookup(number, pin);",
    "}",
    "",
  ].join("\n"),
  "src/lock.py": [
    "# REQ-003 lock after five wrong PINs",
    "def lock(card):",
    "    card.locked_for = 24 * 3600",
    "",
  ].join("\n"),
  "src/notes.ts": "export const label = 'REQ-004 is not implemented yet'; // a string, not a claim\n",
  "test/balance.test.ts": [
    "import { describe, it } from 'vitest';",
    "describe('balance', () => {",
    "  it('REQ-002 shows the balance before confirming', () => {});",
    "});",
    "",
  ].join("\n"),
  "README.md": "Implements REQ-002 and REQ-004 (prose does not count).\n",
};
