/** Repos for repohost tests: the Action's fixture repo (KEP-, ADR- and PRD-shaped specs) as commits of a fake GitHub. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

export const REPO_FIXTURE = resolve(import.meta.dirname, "../../../fixtures/action/repo");

/** Every text file under a folder, by posix path relative to it (binary files as latin1 text). */
export function folderFiles(root: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[prefix + relative(root, p).split("\\").join("/")] = readFileSync(p, "latin1");
    }
  };
  walk(root);
  return out;
}

/** A PRD with an emoji title, CRLF line ends and inline HTML, as people write them. */
export const PRD_CRLF = [
  "---",
  "type: prd",
  "size: small",
  "---",
  "# Offline drafts ✈️",
  "",
  "## Problem",
  "",
  "Writers on trains lose edits when the connection drops (<b>12%</b> of sessions).",
  "",
  "## Goals",
  "",
  "- OFF-1: The editor MUST keep unsaved text in local storage.",
  "",
].join("\r\n");
