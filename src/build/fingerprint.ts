import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { GitRun } from "../workspace/index.ts";

/**
 * A hash of the working tree's changes (paths git reports, with each file's size and mtime), so
 * the loop can tell a turn that changed files from one that did nothing. Otto's own state under
 * `.otto/build/` is left out.
 */
export async function treeFingerprint(git: GitRun, cwd: string): Promise<string> {
  const status = await git(["status", "--porcelain=v1", "-uall", "-z"], { cwd });
  const hash = createHash("sha256");
  const paths = status.stdout
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
  for (const rel of paths.sort()) {
    if (rel.startsWith(".otto/build/")) continue;
    const stat = await fs.stat(path.join(cwd, rel)).catch(() => undefined);
    hash.update(`${rel}\0${stat ? `${stat.size}:${stat.mtimeMs}` : "deleted"}\n`);
  }
  return hash.digest("hex");
}
