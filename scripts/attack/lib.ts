/*
 * Red-team harness: a developer's home under /root/.cache/attack-*, a project checkout in it,
 * and a command run through otto's real sandbox (planCommand + bubblewrap), as a session's shell
 * or a hostile PR's tests would run. Not part of the suite.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { writeDeveloperHome, DEV_SECRETS } from "../../test/support/dev-home.ts";
import { planCommand, type TreePaths } from "../../src/sandbox/index.ts";

export { DEV_SECRETS };

export interface Lab {
  root: string;
  home: string;
  env: Record<string, string>;
  repo: string;
}

export function lab(name: string): Lab {
  const base = path.join("/root/.cache", `attack-${name}`);
  fs.rmSync(base, { recursive: true, force: true });
  const home = path.join(base, "home");
  fs.mkdirSync(home, { recursive: true });
  writeDeveloperHome(home);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const repo = path.join(home, "project");
  fs.mkdirSync(repo);
  git(env, repo, "init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "README.md"), "hello\n");
  git(env, repo, "add", "-A");
  git(env, repo, "commit", "-qm", "init");
  return { root: base, home, env, repo };
}

export function git(env: Record<string, string>, cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** The tree's paths as otto computes them for a session in `dir`. */
export function treeOf(env: Record<string, string>, dir: string): TreePaths {
  const root = git(env, dir, "rev-parse", "--show-toplevel").trim();
  const a = git(env, dir, "rev-parse", "--absolute-git-dir").trim();
  const c = path.resolve(dir, git(env, dir, "rev-parse", "--git-common-dir").trim());
  return { root, gitDirs: [...new Set([a, c])] };
}

/** Runs `command` in otto's sandbox in `dir` (as a session's shell line would). */
export function sandboxed(
  l: Lab,
  dir: string,
  command: string,
  tree: TreePaths = treeOf(l.env, dir),
): { status: number | null; out: string } {
  const plan = planCommand({ mode: "required", cwd: dir, tree, env: l.env }, command);
  if (plan.sandbox === "none") throw new Error("no sandbox");
  const r = spawnSync(plan.argv[0]!, plan.argv.slice(1), { cwd: dir, env: l.env, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

export function verdict(name: string, ok: boolean, detail: string): void {
  console.log(`${ok ? "BROKEN" : "held  "} ${name}: ${detail}`);
}
