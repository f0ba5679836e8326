import fs from "node:fs";
import path from "node:path";
import type { ToolDefinition } from "@opencode-ai/plugin";
import { OttoError, xdgPaths } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { loadConfig, locateConfigFiles, type Repo } from "../config/index.ts";
import { addRepoEntry, proposeRepo, removeRepoEntry, renderBranchName, worktreeDirOf, type RepoEntry } from "../repo/index.ts";
import { remoteUrl, repoRoot } from "../workspace/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb, cwdOf, gitOf } from "./command.ts";

const STRATEGIES = ["worktree", "branch", "hands-off"] as const;
type Strategy = (typeof STRATEGIES)[number];

const ADD_OPTIONS = {
  name: { type: "string" },
  "primary-dir": { type: "string" },
  "worktree-dir": { type: "string" },
  strategy: { type: "string" },
  "branch-template": { type: "string" },
  "branch-pattern": { type: "string", multiple: true },
  yes: { type: "boolean", short: "y" },
  "dry-run": { type: "boolean" },
} as const;

const str = (values: Values, key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);

/** A directory flag as an absolute path: relative to the current directory, `~/` for home (no shell expands it here). */
function dirFlag(values: Values, key: string, ctx: CommandContext): string | undefined {
  const raw = str(values, key);
  if (raw === undefined) return undefined;
  const home = xdgPaths(ctx.runtime.env).home;
  return raw === "~" || raw.startsWith("~/") ? path.join(home, raw.slice(1)) : path.resolve(cwdOf(ctx), raw);
}

function strategyOf(values: Values): Strategy {
  const raw = str(values, "strategy") ?? "worktree";
  const found = STRATEGIES.find((s) => s === raw);
  if (!found) throw new OttoError("usage", `Unknown --strategy '${raw}'.`, `Use one of: ${STRATEGIES.join(", ")}.`);
  return found;
}

/** The entry to write: flags win, the rest is derived from the clone (the current directory, or --primary-dir). */
async function buildEntry(values: Values, ctx: CommandContext): Promise<{ entry: RepoEntry; remote: string | undefined }> {
  const primaryFlag = dirFlag(values, "primary-dir", ctx);
  const source = primaryFlag ?? cwdOf(ctx);
  const proposal = await proposeRepo(source, gitOf(ctx.runtime));
  const name = str(values, "name") ?? proposal?.entry.name;
  const primary = primaryFlag ?? proposal?.entry.primary_dir;
  if (name === undefined || primary === undefined) {
    throw new OttoError(
      "usage",
      `${source} is not inside a git repository, so there is nothing to derive the repo from.`,
      "Run /otto-repo add inside the clone, or pass --name <name> --primary-dir <path>.",
    );
  }
  const strategy = strategyOf(values);
  const worktreeFlag = dirFlag(values, "worktree-dir", ctx);
  const entry: RepoEntry = { name, primary_dir: primary, git_strategy: strategy };
  if (worktreeFlag !== undefined) entry.worktree_dir = worktreeFlag;
  else if (strategy === "worktree") entry.worktree_dir = `${primary}-wt`;
  const template = str(values, "branch-template");
  if (template !== undefined) {
    renderBranchName(template, "example");
    entry.branch_template = template;
  }
  const patterns = values["branch-pattern"];
  if (Array.isArray(patterns) && patterns.length > 0) entry.branch_patterns = patterns;
  return { entry, remote: proposal?.remoteUrl };
}

function describeEntry(entry: RepoEntry, remote: string | undefined): string[] {
  const lines = [`  name:            ${entry.name}`, `  primary_dir:     ${entry.primary_dir}`];
  if (entry.worktree_dir !== undefined) lines.push(`  worktree_dir:    ${entry.worktree_dir}`);
  lines.push(`  git_strategy:    ${entry.git_strategy ?? "worktree"}`);
  if (entry.branch_template !== undefined)
    lines.push(`  branch_template: ${entry.branch_template} (e.g. ${renderBranchName(entry.branch_template, "fix-auth")})`);
  if (entry.branch_patterns?.length) lines.push(`  branch_patterns: ${entry.branch_patterns.join(", ")}`);
  lines.push(`  remote:          ${remote ?? "(none)"}`);
  return lines;
}

async function notesFor(entry: RepoEntry, ctx: CommandContext): Promise<string[]> {
  const notes: string[] = [];
  if ((await repoRoot(entry.primary_dir, gitOf(ctx.runtime))) === undefined)
    notes.push(`Note: ${entry.primary_dir} is not a git clone (yet); otto never clones, so clone it there before using it.`);
  try {
    const loaded = await loadConfig({ directory: cwdOf(ctx), env: ctx.runtime.env, runtime: ctx.runtime });
    const source = loaded.sources.repos;
    if (source?.startsWith("repo ("))
      notes.push(
        `Note: the repo config ${loaded.files.repo} also sets repos, and its list replaces the user's while you work in that repository.`,
      );
  } catch {
    notes.push("Note: the config has other problems; run /otto-config validate.");
  }
  return notes;
}

const add: Verb = {
  path: ["add"],
  args: "[--yes] [--name <n>] [--primary-dir <d>] [--strategy worktree|branch|hands-off] …",
  summary:
    "Track a repo; with no flags inside a clone, shows the derived values (write them with --yes). Also --worktree-dir, --branch-template, --branch-pattern (repeatable), --dry-run",
  options: ADD_OPTIONS,
  async run({ values }, ctx) {
    const { entry, remote } = await buildEntry(values, ctx);
    const flagged = Object.keys(values).some((k) => k !== "yes" && k !== "dry-run");
    if (values["dry-run"] === true || (values.yes !== true && !flagged)) {
      const lines = ["Proposed repo (nothing was written):", ...describeEntry(entry, remote), ""];
      lines.push(
        "Write it to the user config: /otto-repo add --yes",
        "Change a value with its flag, e.g. /otto-repo add --strategy branch --branch-template 'users/me/{{name}}'",
      );
      return { title: `otto repo: proposed ${entry.name}`, output: lines.join("\n") };
    }
    const files = await locateConfigFiles({ directory: cwdOf(ctx), env: ctx.runtime.env });
    const result = await addRepoEntry(files.user, entry, "user");
    const lines = [
      `Added repo '${entry.name}' as repos[${result.index}] of the user config ${result.file}${result.created ? " (created the file)" : ""}:`,
      ...describeEntry(entry, remote),
    ];
    lines.push(...(await notesFor(entry, ctx)), "", `Next: /otto-worktree add <name> --repo ${entry.name}`);
    return { title: `otto repo: added ${entry.name}`, output: lines.join("\n") };
  },
};

const remove: Verb = {
  path: ["remove"],
  args: "<name>",
  summary: "Stop tracking a repo (edits the config only; nothing on disk is touched)",
  positionals: { min: 1, max: 1 },
  async run({ positionals }, ctx) {
    const name = positionals[0] ?? "";
    const files = await locateConfigFiles({ directory: cwdOf(ctx), env: ctx.runtime.env });
    const targets = [{ file: files.user, scope: "user" as const }, ...(files.repo ? [{ file: files.repo, scope: "repo" as const }] : [])];
    for (const { file, scope } of targets) {
      if (!fs.existsSync(file)) continue;
      const removed = await removeRepoEntry(file, name, scope);
      if (!removed) continue;
      const output = [
        `Removed repo '${name}' (repos[${removed.index}]) from the ${scope} config ${removed.file}.`,
        `Nothing on disk was touched: ${removed.entry.primary_dir} and its worktrees are still there.`,
      ];
      return { title: `otto repo: removed ${name}`, output: output.join("\n") };
    }
    throw new OttoError(
      "repo_unknown",
      `No repo named '${name}' in ${targets.map((t) => t.file).join(" or ")}.`,
      "See the tracked repos: /otto-repo list",
    );
  },
};

async function describeRepo(repo: Repo, ctx: CommandContext): Promise<string[]> {
  const exists = (dir: string) => (fs.existsSync(dir) ? "" : " (missing)");
  const remote = fs.existsSync(repo.primary_dir) ? await remoteUrl(repo.primary_dir, gitOf(ctx.runtime)) : undefined;
  const lines = [`${repo.name} (${repo.git_strategy})`, `  primary dir:  ${repo.primary_dir}${exists(repo.primary_dir)}`];
  if (repo.git_strategy === "worktree") {
    const dir = worktreeDirOf(repo);
    lines.push(
      `  worktree dir: ${dir}${fs.existsSync(dir) ? "" : " (not created yet)"}${repo.worktree_dir === undefined ? " (default)" : ""}`,
    );
  }
  lines.push(`  remote:       ${remote ?? "(none)"}`);
  if (repo.branch_template !== undefined) lines.push(`  branches:     ${repo.branch_template}`);
  if (repo.branch_patterns.length > 0) lines.push(`  patterns:     ${repo.branch_patterns.join(", ")}`);
  return lines;
}

const list: Verb = {
  path: ["list"],
  summary: "List tracked repos: strategy, dirs (and whether they exist), remote URL",
  async run(_input, ctx) {
    const loaded = await loadConfig({ directory: cwdOf(ctx), env: ctx.runtime.env, runtime: ctx.runtime });
    const repos = loaded.config.repos;
    if (repos.length === 0) return "No repos are tracked. Add one: run /otto-repo add inside a clone.";
    const blocks = await Promise.all(repos.map((r) => describeRepo(r, ctx)));
    // sources.repos is "user (<file>)" or "repo (<file>)": arrays come from one file as a whole.
    const source = /^(\w+) \((.*)\)$/.exec(loaded.sources.repos ?? "");
    const from = source ? `the ${source[1]} config ${source[2]}` : "the config";
    return [`Tracked repos (${repos.length}), from ${from}:`, "", blocks.map((b) => b.join("\n")).join("\n\n")].join("\n");
  },
};

/** /otto-repo: the repositories otto manages. */
export function repoCommand(runtime: Runtime): ToolDefinition {
  return defineCommand({ name: "otto-repo", summary: "track the repositories otto works in", verbs: [add, remove, list] }, runtime);
}
