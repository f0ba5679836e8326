import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { runGit } from "./git.ts";

/*
 * A tree's OpenCode configuration: the files OpenCode reads from a session's directory when otto
 * creates a session there, in the user's OpenCode process. A plugin is code that runs in that
 * process, an MCP server is a command it starts, an agent entry can hand otto's read-only
 * reviewer a shell, and instruction files reach the model as the project's own rules. A tree whose
 * configuration came from someone without write access (a fork's PR) must not have them when otto
 * opens a session there; a trusted PR that changes them waits for a person. This file is the one
 * definition of "OpenCode configuration" both rules use.
 *
 * What OpenCode 1.18.33 (the pinned `opencode-ai`) loads from a project, read from its bundled
 * source (`ConfigPaths`, `Instruction`, `Skill`, the plugin and tool loaders):
 * - `opencode.jsonc` and `opencode.json` in every directory from the session's directory up to the
 *   worktree root (`ConfigPaths.projectFiles`, a find-up): agents, commands, `mcp` servers (local
 *   ones are commands it spawns), `plugin` packages, `instructions`, `formatter` and `lsp` commands,
 *   `permission`, providers;
 * - every `.opencode/` folder on the same way up (`ConfigPaths.directories`): its `opencode.json(c)`,
 *   `{agent,agents}/*.md`, `{command,commands}/*.md`, `{mode,modes}/*.md`, `{plugin,plugins}/*.{ts,js}`
 *   (imported), `{tool,tools}/*.{js,ts}` (imported), `{skill,skills}/**\/SKILL.md`, and its
 *   `package.json`, whose dependencies OpenCode installs;
 * - `AGENTS.md`, `CLAUDE.md`, `CONTEXT.md` found up from the directory (`Instruction.systemPaths`),
 *   and the same names in every folder between a file the model reads and the directory
 *   (`Instruction.resolve`): so in any folder of the tree;
 * - `.claude/skills/**\/SKILL.md` and `.agents/skills/**\/SKILL.md` found up from the directory
 *   (`Skill` discovery, project scope).
 * Names are matched case-insensitively: on a case-insensitive file system `agents.md` is AGENTS.md.
 */

const CONFIG_FILES = new Set(["opencode.json", "opencode.jsonc", "agents.md", "claude.md", "context.md"]);
const CONFIG_FOLDER = ".opencode";
/** `<parent>/skills` folders OpenCode reads skills from. */
const SKILL_PARENTS = new Set([".claude", ".agents"]);

/**
 * The part of `file` (a path relative to the tree's root, `/`-separated, as git prints it) that is
 * OpenCode configuration: the path itself, the `.opencode` folder it is in, or the skills folder
 * it is in. Undefined when it is none of them.
 */
export function openCodeConfigRoot(file: string): string | undefined {
  const parts = file.split("/").filter((p) => p !== "" && p !== ".");
  for (let i = 0; i < parts.length; i++) {
    const part = (parts[i] as string).toLowerCase();
    if (part === CONFIG_FOLDER) return parts.slice(0, i + 1).join("/");
    if (SKILL_PARENTS.has(part) && parts[i + 1]?.toLowerCase() === "skills") return parts.slice(0, i + 2).join("/");
  }
  const name = parts.at(-1)?.toLowerCase();
  return name !== undefined && CONFIG_FILES.has(name) ? parts.join("/") : undefined;
}

export function isOpenCodeConfig(file: string): boolean {
  return openCodeConfigRoot(file) !== undefined;
}

/** The OpenCode configuration among `files`, in their order. */
export function openCodeConfigFiles(files: readonly string[]): string[] {
  return files.filter(isOpenCodeConfig);
}

const lines = (stdout: string): string[] => stdout.split("\0").filter(Boolean);

/**
 * The OpenCode configuration files that differ between `from` and HEAD in `dir`: `from...HEAD`
 * (since the merge base: the PR's own change) or, with `direct`, `from..HEAD` (since that commit).
 * Renames count as a deletion and an addition, so moving a plugin out of `.opencode/` shows.
 * Undefined when git cannot tell (an unknown ref).
 */
export async function changedOpenCodeConfig(
  dir: string,
  from: string,
  options: { env?: Env; direct?: boolean } = {},
): Promise<string[] | undefined> {
  const range = options.direct ? `${from}..HEAD` : `${from}...HEAD`;
  const result = await runGit(["-c", "core.quotepath=off", "diff", "--name-only", "-z", "--no-renames", range], {
    cwd: dir,
    ...(options.env ? { env: options.env } : {}),
  });
  if (result.exitCode !== 0) return undefined;
  return openCodeConfigFiles(lines(result.stdout));
}

/** `git diff from...HEAD` of just `files`, as text for a prompt (fixed prefixes, no external diff). */
export async function openCodeConfigDiff(dir: string, from: string, files: readonly string[], env?: Env): Promise<string> {
  if (files.length === 0) return "";
  const args = [
    "-c",
    "core.quotepath=off",
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    `${from}...HEAD`,
    "--",
    ...files.map((f) => `:(literal)${f}`),
  ];
  const result = await runGit(args, { cwd: dir, ...(env ? { env } : {}) });
  return result.exitCode === 0 ? result.stdout : "";
}

export interface RemovedConfig {
  /** What was removed, relative to the tree's root: files, and whole `.opencode` and skills folders. */
  removed: string[];
}

/**
 * Deletes every piece of OpenCode configuration from `dir`, a checkout that is otto's own (a
 * temporary worktree), never the user's. Tracked and untracked paths alike (git lists both;
 * it never lists a path behind a symbolic link, so nothing outside the tree is reached). A
 * symbolic link named like configuration is removed itself, not what it points to.
 */
export async function removeOpenCodeConfig(dir: string, env?: Env): Promise<RemovedConfig> {
  const listed = await runGit(["-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--others"], {
    cwd: dir,
    ...(env ? { env } : {}),
  });
  if (listed.exitCode !== 0) throw new Error(`git ls-files failed in ${dir}: ${listed.stderr.trim()}`);
  const roots = [
    ...new Set(
      lines(listed.stdout)
        .map(openCodeConfigRoot)
        .filter((r): r is string => r !== undefined),
    ),
  ].sort();
  // A folder already taken with its parent is not listed twice (`.opencode/skills` inside `.opencode`).
  const outermost = roots.filter((r, i) => !roots.slice(0, i).some((other) => r.startsWith(`${other}/`)));
  const base = path.resolve(dir);
  const removed: string[] = [];
  for (const rel of outermost) {
    const target = path.resolve(base, rel);
    if (!target.startsWith(`${base}${path.sep}`)) continue;
    // Tracked files already deleted from disk are still listed: only what is there counts.
    const there = await fs.lstat(target).then(
      () => true,
      () => false,
    );
    if (!there) continue;
    await fs.rm(target, { recursive: true, force: true });
    removed.push(rel);
  }
  return { removed };
}
