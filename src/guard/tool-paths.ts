import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";

/*
 * OpenCode's file tools (read, write, edit, patch, list, glob, grep) run in OpenCode's process,
 * outside otto's sandbox, with the user's rights, and follow links. A session's sandboxed shell can
 * make a link in its tree (`ln -s ~/.config/opencode/plugin plug`), so a path is judged by where it
 * resolves, never by how it is spelled: a path inside the tree whose target lies outside it is
 * refused, and so is any path that resolves into a credential store or OpenCode's or otto's
 * configuration. Writes into git's directory or OpenCode's configuration in the tree (`.opencode/`,
 * `opencode.json`) are refused too: the next OpenCode start would load them, outside any sandbox.
 */

/** Where `file` really is: its real path, or for one that does not exist yet its nearest existing folder's real path joined with the rest. */
export function resolvedPath(file: string): string {
  let probe = path.resolve(file);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(probe), ...rest.reverse());
    } catch {
      const parent = path.dirname(probe);
      if (parent === probe) return path.resolve(file);
      rest.push(path.basename(probe));
      probe = parent;
    }
  }
}

/** `inner` is `outer` or inside it; a folder inside named `..x` is inside (only `..` itself leads out). */
const within = (inner: string, outer: string): boolean => {
  const rel = path.relative(outer, inner);
  return rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
};

/** OpenCode's and otto's configuration and data: a file tool reaching them could load code or read keys. */
export function configPaths(env: Env): string[] {
  const { home, config, data, ottoConfigDir, ottoDataDir } = xdgPaths(env);
  return [path.join(config, "opencode"), path.join(data, "opencode"), path.join(home, ".opencode"), ottoConfigDir, ottoDataDir].map((p) =>
    resolvedPath(p),
  );
}

/** True for a path in a tree that OpenCode loads as configuration (`.opencode/…`, `opencode.json[c]`). */
export function isOpencodeConfigPath(rel: string): boolean {
  const parts = rel.split(/[\\/]/);
  return parts.includes(".opencode") || /^opencode\.jsonc?$/.test(parts.at(-1) ?? "");
}

export interface PathContext {
  /** The session's tree (its directory). */
  tree: string;
  /** Credential stores (sandbox/policy.ts credentialPaths). */
  hidden: readonly string[];
  /** configPaths(env). */
  config: readonly string[];
  /** The tool writes. */
  write: boolean;
  /** Names the sandbox hides in a tree (`.env`, a private key): a reading tool may not open them either. */
  secretName?: (name: string) => boolean;
}

/** Why the tool may not touch `file` (absolute or relative to the tree; `shown` as the model wrote it); undefined when it may. */
export function pathRefusal(file: string, context: PathContext, shown = file): string | undefined {
  const tree = resolvedPath(context.tree);
  const spelled = path.resolve(context.tree, file);
  const real = resolvedPath(spelled);
  const inTree = within(spelled, context.tree) || within(spelled, tree);
  if (within(real, tree)) {
    const rel = path.relative(tree, real);
    // git's directory holds the checkout's credentials (a token in a remote URL, an extraheader), for reading tools too.
    if (rel.split(path.sep).includes(".git")) return `${shown}, in git's directory`;
    if (!context.write) return context.secretName?.(path.basename(real)) ? `${shown}, a secret file the sandbox hides` : undefined;
    if (isOpencodeConfigPath(rel)) return `${shown}: OpenCode configuration, which the next OpenCode start would load outside the sandbox`;
    return undefined;
  }
  // Outside the tree (otto's own worktrees live in its data folder: the tree itself is never refused).
  if (context.hidden.some((h) => within(real, resolvedPath(h)) || within(spelled, h))) return `${shown}, where credentials live`;
  if (context.config.some((c) => within(real, c))) return `${shown}, in OpenCode's or otto's configuration (${real})`;
  if (inTree) return `${shown}: a link in the tree leads outside it (to ${real})`;
  return undefined;
}

/**
 * Why a shell command may not run in `real` (the workdir `spelled` resolves to): outside the
 * session's tree. OpenCode asks before a workdir spelled outside its project, never for a link
 * inside it, and the sandbox makes a command's tree writable: the tree must be the session's.
 */
export function workdirRefusal(spelled: string, real: string, tree: string): string | undefined {
  if (within(real, resolvedPath(tree))) return undefined;
  return within(spelled, tree)
    ? `running a command in ${spelled}: a link in the tree leads outside it (to ${real})`
    : `running a command in ${spelled}, outside the session's folder (${tree})`;
}
