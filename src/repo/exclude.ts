import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { runGit } from "../workspace/index.ts";

/**
 * Keeps otto's local files out of git through the repository's `info/exclude` (shared by all its
 * worktrees; never the user's .gitignore). Adds `line` once, under a `# comment`; does nothing
 * outside git.
 */
export async function excludeFromGit(dir: string, line: string, comment: string, env?: Env): Promise<void> {
  const result = await runGit(["rev-parse", "--path-format=absolute", "--git-path", "info/exclude"], { cwd: dir, ...(env ? { env } : {}) });
  const file = result.stdout.trim();
  if (result.exitCode !== 0 || file === "") return;
  let text = "";
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text.split(/\r?\n/).some((l) => l.trim() === line)) return;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const prefix = text === "" || text.endsWith("\n") ? "" : "\n";
  await fs.appendFile(file, `${prefix}# ${comment}\n${line}\n`);
}
