import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { runGit } from "./git.ts";
import { checkTreeLayout } from "./tree-layout.ts";

/*
 * What a checkout's git runs and where it pushes is decided by its configuration (every scope git
 * reads, included files too) and its hooks. A session could plant a pre-push hook, a pushurl or a
 * `core.fsmonitor` program, and otto's own commit and push would then run it with the user's
 * credentials. So otto snapshots both before it hands the tree to a session and compares before it
 * commits and pushes: any change, and otto pushes nothing and says why. `info/attributes` is in the
 * snapshot too: it is not in any diff, and a `-diff` there hides a file's changes from a reviewer.
 */

export interface GitControlSnapshot {
  dir: string;
  /** Item → digest: `config <origin> <key>` entries, `hook <path>` files and `file info/attributes`. */
  items: Record<string, string>;
}

const digest = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

/** `branch.<name>.*` only says what a branch tracks: otto pushes with an explicit remote and refspec, so a session may set it. */
const IGNORED_KEY = /^branch\./;

async function gitText(args: string[], dir: string, env: Env): Promise<string | undefined> {
  const result = await runGit(args, { cwd: dir, env });
  return result.exitCode === 0 ? result.stdout : undefined;
}

function hookFiles(dir: string, label: string, items: Record<string, string>): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const stat = fs.lstatSync(file);
      const content = stat.isSymbolicLink()
        ? `symlink:${fs.readlinkSync(file)}`
        : stat.isFile()
          ? fs.readFileSync(file)
          : `type:${stat.mode & 0o170000}`;
      items[`hook ${label}/${name}`] = `${digest(content)} mode ${(stat.mode & 0o111) !== 0 ? "x" : "-"}`;
    } catch {
      items[`hook ${label}/${name}`] = "unreadable";
    }
  }
}

/** Files under the git directory that steer git without being configuration: attributes (diff, filters, conversions). */
function controlFiles(gitDir: string | undefined, commonDir: string | undefined, items: Record<string, string>): void {
  for (const [label, dir] of [
    ["", commonDir],
    ["worktree ", gitDir !== commonDir ? gitDir : undefined],
  ] as const) {
    if (!dir) continue;
    try {
      items[`file ${label}info/attributes`] = digest(fs.readFileSync(path.join(dir, "info", "attributes")));
    } catch {
      // Absent: an added file shows as added.
    }
  }
}

/** The checkout's own core.hooksPath (every scope but the command line, where otto's git.ts sets "/dev/null"). */
async function ownHooksPath(dir: string, env: Env): Promise<string | undefined> {
  const lines = (await gitText(["config", "--show-scope", "--get-all", "core.hooksPath"], dir, env))?.split("\n") ?? [];
  const own = lines.map((line) => /^([a-z]+)\t(.*)$/.exec(line)).filter((m) => m !== null && m[1] !== "command");
  return own.at(-1)?.[2]?.trim() || undefined;
}

/** The checkout's git configuration (all scopes), hooks (the hooks dir and core.hooksPath) and info/attributes, as digests. */
export async function snapshotGitControl(dir: string, options: { env?: Env } = {}): Promise<GitControlSnapshot> {
  const env = options.env ?? process.env;
  const items: Record<string, string> = {};
  const config = (await gitText(["config", "--list", "--show-origin", "-z"], dir, env)) ?? "";
  const fields = config.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] ?? "";
    const entry = fields[i + 1] ?? "";
    const key = entry.split("\n")[0] ?? "";
    // Command-line entries are otto's own hardening (git.ts) and the environment's, not the checkout's.
    if (IGNORED_KEY.test(key) || origin === "command line:") continue;
    const item = `config ${origin} ${key}`;
    // A key may repeat (multi-valued): the digest covers every value in order.
    items[item] = digest(`${items[item] ?? ""}\0${entry}`);
  }
  // Where the git directories are: otto's record of the layout, never git's answer in a tree a session wrote.
  const layout = checkTreeLayout(dir);
  const [gitDir, commonDir, top] = layout ? [layout.gitDir, layout.commonDir, layout.root] : [];
  if (commonDir) hookFiles(path.join(commonDir, "hooks"), "hooks", items);
  if (gitDir && gitDir !== commonDir) hookFiles(path.join(gitDir, "hooks"), "worktree hooks", items);
  controlFiles(gitDir, commonDir, items);
  const hooksPath = await ownHooksPath(dir, env);
  if (hooksPath) {
    const home = env.HOME ?? "";
    const expanded = hooksPath.startsWith("~/") ? path.join(home, hooksPath.slice(2)) : hooksPath;
    hookFiles(path.resolve(top ?? dir, expanded), `core.hooksPath ${hooksPath}`, items);
  }
  return { dir, items };
}

/** What changed since `before`, one line each (keys and hook names, never values); empty when nothing did. */
export async function gitControlChanges(before: GitControlSnapshot, options: { env?: Env } = {}): Promise<string[]> {
  const after = await snapshotGitControl(before.dir, options);
  const keys = new Set([...Object.keys(before.items), ...Object.keys(after.items)]);
  const changes: string[] = [];
  for (const key of [...keys].sort()) {
    const was = before.items[key];
    const now = after.items[key];
    if (was === now) continue;
    changes.push(`${key} ${was === undefined ? "added" : now === undefined ? "removed" : "changed"}`);
  }
  return changes;
}

/** Why otto commits and pushes nothing in `dir`, naming what changed (never a value). */
export function describeControlChanges(dir: string, changes: readonly string[]): string {
  const shown = changes.slice(0, 5).join("; ") + (changes.length > 5 ? `; and ${changes.length - 5} more` : "");
  return `the git configuration or hooks of ${dir} changed while otto's sessions worked in it (${shown}). A person must look before otto commits or pushes from this checkout.`;
}
