import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";

/*
 * What a sandboxed command may touch. The rule: the code of otto's work (a session's shell
 * command, a check otto runs on a tree a session touched, a hook) may write its work tree, a
 * private temp folder and the package caches, and read the rest of the system; it cannot write
 * the files that decide what git runs, and it cannot see where the user's credentials live.
 * Network stays open (installs need it): no credential is left to use on it.
 */

/** Where a command runs: its tree and the git directories behind it (a worktree has two). */
export interface TreePaths {
  /** The work tree's top level (or the directory itself outside git). */
  root: string;
  /** `git rev-parse --absolute-git-dir` and `--git-common-dir`, deduplicated; empty outside git. */
  gitDirs: readonly string[];
}

export interface SandboxPolicy {
  /** The directory the command starts in. */
  cwd: string;
  /** Writable: the tree and its git directories (objects, refs, index). */
  tree: string[];
  /** Writable: the package caches. */
  caches: string[];
  /** Read-only although inside a writable folder: git's config, hooks, info, commondir, gitdir and modules of every git directory, and a linked worktree's `.git` file. */
  readOnly: string[];
  /** Invisible: credential stores, otto's own config and data, OpenCode's provider keys, the SSH agent. */
  hidden: string[];
  /** Folders replaced by an empty private one (the system's temp folders). */
  privateTemp: string[];
}

/**
 * The credential stores a session has no business reading, from the user's environment. Missing
 * ones are skipped when the sandbox is built. OpenCode's auth.json holds the model providers' keys.
 */
export function credentialPaths(env: Env): string[] {
  const { home, config, data, ottoConfigDir, ottoDataDir } = xdgPaths(env);
  const paths = [
    path.join(home, ".ssh"),
    path.join(home, ".gnupg"),
    path.join(home, ".git-credentials"),
    path.join(config, "git", "credentials"),
    path.join(home, ".netrc"),
    path.join(home, ".npmrc"),
    path.join(home, ".yarnrc.yml"),
    path.join(home, ".pypirc"),
    path.join(home, ".docker", "config.json"),
    path.join(home, ".aws"),
    path.join(home, ".azure"),
    path.join(home, ".kube"),
    path.join(config, "gh"),
    path.join(config, "hub"),
    path.join(config, "gcloud"),
    ottoConfigDir,
    ottoDataDir,
    path.join(data, "opencode", "auth.json"),
    path.join(data, "opencode", "mcp-auth.json"),
  ];
  if (env.GH_CONFIG_DIR) paths.push(env.GH_CONFIG_DIR);
  if (env.AZURE_CONFIG_DIR) paths.push(env.AZURE_CONFIG_DIR);
  if (env.NPM_CONFIG_USERCONFIG) paths.push(env.NPM_CONFIG_USERCONFIG);
  if (env.SSH_AUTH_SOCK) paths.push(env.SSH_AUTH_SOCK);
  return unique(paths.map((p) => path.resolve(p)));
}

/** Package caches: an install inside the sandbox may fill them (missing ones are skipped). */
export function cachePaths(env: Env): string[] {
  const { home } = xdgPaths(env);
  const paths = [
    env.XDG_CACHE_HOME || path.join(home, ".cache"),
    path.join(home, ".npm"),
    path.join(home, ".bun", "install", "cache"),
    path.join(home, ".yarn"),
    path.join(home, ".pnpm-store"),
    path.join(home, ".local", "share", "pnpm"),
    path.join(home, ".cargo", "registry"),
    path.join(home, ".cargo", "git"),
    env.GOMODCACHE || path.join(home, "go", "pkg", "mod"),
    env.GOCACHE || path.join(home, ".cache", "go-build"),
    path.join(home, ".m2"),
    path.join(home, ".gradle"),
    path.join(home, ".nuget", "packages"),
  ];
  if (env.npm_config_cache) paths.push(env.npm_config_cache);
  return unique(paths.map((p) => path.resolve(p)));
}

/** The policy for a command started in `cwd` inside `tree`. */
export function sandboxPolicy(input: { cwd: string; tree: TreePaths; env: Env }): SandboxPolicy {
  const { cwd, tree, env } = input;
  const temp = unique(["/tmp", "/var/tmp", ...(env.TMPDIR ? [path.resolve(env.TMPDIR)] : [])]);
  const own = unique([path.resolve(tree.root), ...tree.gitDirs.map((d) => path.resolve(d))]);
  // What decides where git looks (commondir, gitdir, a linked worktree's .git file) and what it runs.
  const dotGit = path.join(path.resolve(tree.root), ".git");
  const readOnly = [
    ...tree.gitDirs.flatMap((dir) =>
      ["config", "config.worktree", "hooks", "info", "commondir", "gitdir", "modules"].map((name) => path.join(path.resolve(dir), name)),
    ),
    ...(tree.gitDirs.length > 0 && !own.includes(dotGit) ? [dotGit] : []),
  ];
  return {
    cwd: path.resolve(cwd),
    tree: own,
    caches: cachePaths(env).filter((c) => !own.includes(c)),
    readOnly: unique(readOnly),
    hidden: credentialPaths(env),
    privateTemp: temp,
  };
}

/** True when `inner` is `outer` or lies inside it. */
export function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
