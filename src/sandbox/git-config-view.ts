import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import { realPath } from "./home.ts";
import { within } from "./policy.ts";

/*
 * A checkout's own git configuration, as the sandbox shows it. `.git/config` can hold a credential:
 * a remote URL with a token in it (`https://ghp_…@github.com/…`), an `http.extraheader` that
 * actions/checkout or Azure's persistCredentials wrote, a `credential` section. The code the
 * sandbox holds reads the tree's git directory, so it would read those too. Where the file holds
 * one, the sandbox shows a copy without it, read-only, in its place (bubblewrap): URLs keep their
 * host and path, and git inside still knows its remotes. The files it includes are read the same
 * way, judged by where they resolve, but never the includes of a file the sandbox can write (a
 * tree's `.gitconfig`): those name what sandboxed code chose, and a copy made of the user's
 * `~/.gitconfig` would show it whole. bwrap.ts binds a copy only where the file is shown anyway.
 * Otto's own fetch and push run outside,
 * with the real file (airlock.ts), and the git-control guard digests the real file both times.
 */

const URL_USERINFO = /\b(https?:\/\/)[^/@\s"]+@/gi;
const EXTRAHEADER = /^\s*extraheader\s*=/i;
const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)/;

/** `text` (a git config file) without credentials; the same text when it holds none. */
export function withoutCredentials(text: string): string {
  const out: string[] = [];
  let inCredential = false;
  for (const line of text.split("\n")) {
    const section = SECTION.exec(line);
    if (section) inCredential = section[1]?.toLowerCase() === "credential";
    if (inCredential || EXTRAHEADER.test(line)) continue;
    out.push(line.replace(URL_USERINFO, "$1"));
  }
  return out.join("\n");
}

const INCLUDE_SECTION = /^\s*\[\s*include(?:if)?\b/i;
const INCLUDE_PATH = /^\s*path\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;#]*?))\s*(?:[;#].*)?$/i;
/** Includes within includes: git itself stops at 10. */
export const MAX_INCLUDE_DEPTH = 10;

/**
 * The files a config file includes (`include.path`, every `includeIf.<condition>.path`, whatever
 * the condition: otto cannot tell what git inside will match), as absolute paths: relative to the
 * including file's folder, `~/` in the home.
 */
export function includedFiles(text: string, from: string, home: string): string[] {
  const files: string[] = [];
  let inInclude = false;
  for (const line of text.split("\n")) {
    if (SECTION.test(line)) inInclude = INCLUDE_SECTION.test(line);
    const match = inInclude ? INCLUDE_PATH.exec(line) : null;
    // Unquoted, the pattern leaves the blanks around it out; quoted, they are the path's, as git reads it.
    const value = match?.[1] ?? match?.[2] ?? "";
    if (!value) continue;
    const expanded = value === "~" || value.startsWith("~/") ? path.join(home, value.slice(1)) : value;
    files.push(path.resolve(path.dirname(from), expanded));
  }
  return files;
}

/**
 * For each of the git directories' config files, and every file they include (actions/checkout
 * keeps the job's token in `$RUNNER_TEMP/git-credentials-*.config`, included by
 * `includeIf.gitdir:….path`), that holds a credential: a copy without it (under otto's data
 * folder, out of sight inside, named by its content) and the file it stands for (its real path).
 * `writable`: the folders sandboxed code may write (the tree, its git directories): the includes
 * of a file there are not followed, the git directories' own config files (read-only inside) excepted.
 */
export function configViews(
  gitDirs: readonly string[],
  env: Env,
  writable: readonly string[] = gitDirs,
): Array<{ copy: string; file: string }> {
  const views: Array<{ copy: string; file: string }> = [];
  const { home, ottoDataDir } = xdgPaths(env);
  const seen = new Set<string>();
  const visit = (spelled: string, depth: number): void => {
    const file = realPath(spelled);
    if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(file);
    let text: string;
    try {
      if (!fs.statSync(file).isFile()) return;
      text = fs.readFileSync(file, "utf8");
    } catch {
      return;
    }
    // Relative includes are git's: from the folder of the file as spelled.
    if (depth === 0 || !writable.some((w) => within(file, w)))
      for (const included of includedFiles(text, spelled, home)) visit(included, depth + 1);
    const clean = withoutCredentials(text);
    if (clean === text) return;
    const folder = path.join(ottoDataDir, "sandbox");
    const copy = path.join(folder, `git-${path.basename(file)}-${createHash("sha256").update(clean).digest("hex").slice(0, 16)}`);
    if (!fs.existsSync(copy)) {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      const temp = `${copy}.${process.pid}.${Date.now()}.tmp`;
      fs.writeFileSync(temp, clean, { mode: 0o600 });
      fs.renameSync(temp, copy);
    }
    views.push({ copy, file });
  };
  for (const dir of gitDirs) {
    for (const name of ["config", "config.worktree"]) {
      const file = path.join(dir, name);
      // The git directory's own config must be a file there, not a link elsewhere.
      try {
        if (!fs.lstatSync(file).isFile()) continue;
      } catch {
        continue;
      }
      visit(file, 0);
    }
  }
  return views;
}
