import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { runGit } from "./git.ts";
import { within } from "../sandbox/index.ts";
import { checkTreeLayout } from "./tree-layout.ts";

/*
 * What a checkout's git runs and where it pushes is decided by its configuration and its hooks. A
 * session could plant a pre-push hook, a pushurl or a `core.fsmonitor` program, and otto's own
 * commit and push would then run it with the user's credentials. So otto snapshots both before it
 * hands the tree to a session and compares before it commits and pushes: any change, and otto
 * pushes nothing and says why. `info/attributes` is in the snapshot too: it is not in any diff, and
 * a `-diff` there hides a file's changes from a reviewer.
 *
 * The snapshot covers what sandboxed code could write: configuration read from files that resolve
 * inside the tree or its git directories (the local and worktree scopes and what they include, a
 * global file only when the tree holds it), and hooks folders there. The user's global and system
 * files are not compared: the sandbox cannot write them, and git run inside it (where otto's own
 * local git runs once sandboxed code held the tree) sees the home otto shows it, not the user's, so
 * a snapshot taken outside and one taken inside would differ in every global key.
 */

export interface GitControlSnapshot {
  dir: string;
  /** Item → digest: `config <origin> <key>` entries, `hook <path>` files and `file info/attributes`. */
  items: Record<string, string>;
}

const digest = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

/** `branch.<name>.*` only says what a branch tracks: otto pushes with an explicit remote and refspec, so a session may set it. */
const IGNORED_KEY = /^branch\./;

/** True when `file` resolves inside one of `roots` (what the sandbox may write). */
function writableInside(file: string, roots: readonly string[]): boolean {
  let real = path.resolve(file);
  try {
    real = fs.realpathSync(real);
  } catch {
    // Missing: judged by its spelling.
  }
  return roots.some((root) => within(real, root));
}

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

/**
 * The git directories' own config files, each read by path outside any repository (`git config
 * --file`, from `/`: no program runs): the sandbox shows git a copy without credentials in their
 * place (git-config-view.ts), so git's reading in the tree would differ inside and out.
 */
async function ownConfigEntries(files: readonly string[], env: Env, add: (origin: string, entry: string) => void): Promise<void> {
  for (const file of files) {
    if (!fs.lstatSync(file, { throwIfNoEntry: false })) continue;
    const text = (await gitText(["config", "--file", file, "--no-includes", "--list", "-z"], "/", env)) ?? "";
    for (const entry of text.split("\0")) if (entry) add(`file:${file}`, entry);
  }
}

function ownConfigFiles(gitDir: string | undefined, commonDir: string | undefined): string[] {
  return [...new Set([commonDir, gitDir])].flatMap((dir) =>
    dir ? ["config", "config.worktree"].map((n) => resolveFile(path.join(dir, n))) : [],
  );
}

function resolveFile(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** The checkout's git configuration and hooks that sandboxed code could change, and info/attributes, as digests. */
export async function snapshotGitControl(dir: string, options: { env?: Env } = {}): Promise<GitControlSnapshot> {
  const env = options.env ?? process.env;
  const items: Record<string, string> = {};
  // Where the git directories are: otto's record of the layout, never git's answer in a tree a session wrote.
  const layout = checkTreeLayout(dir);
  const [gitDir, commonDir, top] = layout ? [layout.gitDir, layout.commonDir, layout.root] : [];
  const roots = [...new Set([top ?? dir, gitDir, commonDir].filter((d): d is string => d !== undefined))];
  const config = (await gitText(["config", "--list", "--show-origin", "-z"], dir, env)) ?? "";
  const fields = config.split("\0");
  let hooksPath: string | undefined;
  const own = ownConfigFiles(gitDir, commonDir);
  const add = (origin: string, entry: string): void => {
    const key = entry.split("\n")[0] ?? "";
    if (IGNORED_KEY.test(key)) return;
    const item = `config ${origin} ${key}`;
    // A key may repeat (multi-valued): the digest covers every value in order.
    items[item] = digest(`${items[item] ?? ""}\0${entry}`);
  };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] ?? "";
    const entry = fields[i + 1] ?? "";
    const key = entry.split("\n")[0] ?? "";
    // Command-line entries are otto's own hardening (git.ts) and the environment's.
    if (!origin.startsWith("file:")) continue;
    // The last file that sets it wins, as in git (a global `.githooks` is a folder in every tree).
    if (key === "core.hookspath") hooksPath = entry.slice(key.length + 1).trim() || undefined;
    // Files outside the tree and its git directories: the sandbox cannot write them.
    const file = path.resolve(dir, origin.slice(5));
    if (IGNORED_KEY.test(key) || !writableInside(file, roots) || own.includes(resolveFile(file))) continue;
    add(origin, entry);
  }
  await ownConfigEntries(own, env, add);
  if (commonDir) hookFiles(path.join(commonDir, "hooks"), "hooks", items);
  if (gitDir && gitDir !== commonDir) hookFiles(path.join(gitDir, "hooks"), "worktree hooks", items);
  controlFiles(gitDir, commonDir, items);
  if (hooksPath) {
    const expanded = hooksPath.startsWith("~/") ? path.join(env.HOME ?? "", hooksPath.slice(2)) : hooksPath;
    const hooksDir = path.resolve(top ?? dir, expanded);
    // An in-tree hooks folder (.husky/_) is the tree's; one outside it is the user's own.
    if (writableInside(hooksDir, roots)) hookFiles(hooksDir, `core.hooksPath ${hooksPath}`, items);
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
