import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";

/*
 * A checkout's own git configuration, as the sandbox shows it. `.git/config` can hold a credential:
 * a remote URL with a token in it (`https://ghp_…@github.com/…`), an `http.extraheader` that
 * actions/checkout or Azure's persistCredentials wrote, a `credential` section. The code the
 * sandbox holds reads the tree's git directory, so it would read those too. Where the file holds
 * one, the sandbox shows a copy without it, read-only, in its place (bubblewrap): URLs keep their
 * host and path, and git inside still knows its remotes. Otto's own fetch and push run outside,
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

/**
 * For each of the git directories' config files that holds a credential: a copy without it (under
 * otto's data folder, out of sight inside, named by its content) and the file it stands for.
 */
export function configViews(gitDirs: readonly string[], env: Env): Array<{ copy: string; file: string }> {
  const views: Array<{ copy: string; file: string }> = [];
  for (const dir of gitDirs) {
    for (const name of ["config", "config.worktree"]) {
      const file = path.join(dir, name);
      let text: string;
      try {
        if (!fs.lstatSync(file).isFile()) continue;
        text = fs.readFileSync(file, "utf8");
      } catch {
        continue;
      }
      const clean = withoutCredentials(text);
      if (clean === text) continue;
      const folder = path.join(xdgPaths(env).ottoDataDir, "sandbox");
      const copy = path.join(folder, `git-${name}-${createHash("sha256").update(clean).digest("hex").slice(0, 16)}`);
      if (!fs.existsSync(copy)) {
        fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
        const temp = `${copy}.${process.pid}.${Date.now()}.tmp`;
        fs.writeFileSync(temp, clean, { mode: 0o600 });
        fs.renameSync(temp, copy);
      }
      views.push({ copy, file });
    }
  }
  return views;
}
