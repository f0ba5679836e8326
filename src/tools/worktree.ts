import type { ToolDefinition } from "@opencode-ai/plugin";
import { xdgPaths } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { loadConfig, type Repo } from "../config/index.ts";
import {
  addWorktree,
  findRepo,
  listWorktrees,
  prDocumentsDir,
  removeWorktree,
  worktreeDirOf,
  type ActiveSpec,
  type WorktreeEntry,
  type WorktreeRemoved,
} from "../repo/index.ts";
import { listSpecs } from "../spec/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb, cwdOf, gitOf } from "./command.ts";

const REPO = { repo: { type: "string" } } as const;

async function repoFor(values: Values, ctx: CommandContext): Promise<Repo> {
  const loaded = await loadConfig({ directory: cwdOf(ctx), env: ctx.runtime.env, runtime: ctx.runtime });
  const name = typeof values.repo === "string" ? values.repo : undefined;
  return findRepo(loaded.config.repos, { name, cwd: cwdOf(ctx), git: gitOf(ctx.runtime) });
}

/** Specs in a working tree with tasks still to do (not completed or skipped). */
function activeSpecs(dir: string): ActiveSpec[] {
  try {
    return listSpecs(dir).flatMap((spec) => {
      const t = spec.tasks;
      const unfinished = t ? t.total - t.byStatus.completed - t.byStatus.skipped : 0;
      return t && unfinished > 0 ? [{ slug: spec.slug, unfinished, total: t.total }] : [];
    });
  } catch {
    // A spec that does not parse is /otto-spec's to report, not the listing's.
    return [];
  }
}

const add: Verb = {
  path: ["add"],
  args: "<name> [--repo <repo>]",
  summary: "Create a worktree (worktree strategy) or branch (branch strategy) named by branch_template",
  options: REPO,
  positionals: { min: 1, max: 1 },
  async run({ values, positionals }, ctx) {
    const repo = await repoFor(values, ctx);
    const done = await addWorktree(repo, positionals[0] ?? "", gitOf(ctx.runtime));
    const from = done.base === undefined ? "the existing branch" : `a new branch from ${done.base}`;
    const lines =
      done.strategy === "worktree"
        ? [`Created worktree ${done.dir} on branch '${done.branch}' (${from}) for repo '${repo.name}'.`]
        : [
            `Created branch '${done.branch}' from ${done.base ?? "HEAD"} and checked it out in ${done.dir} (repo '${repo.name}', branch strategy).`,
          ];
    lines.push(`Ran: ${done.command}`, "", `Next: work in ${done.dir}; /otto-worktree list --repo ${repo.name} shows its state.`);
    return { title: `otto worktree: added ${done.name}`, output: lines.join("\n") };
  },
};

function upstreamText(e: WorktreeEntry): string {
  if (e.upstream === undefined) return "no upstream";
  if (e.ahead === undefined || e.behind === undefined) return `${e.upstream} (gone)`;
  return `${e.upstream} ↑${e.ahead} ↓${e.behind}`;
}

function ottoText(e: WorktreeEntry): string {
  const specs = e.specs.map((s) => `spec ${s.slug} (${s.unfinished}/${s.total} tasks left)`);
  const prs = e.prs.map((p) => `PR ${p.id}${p.url ? ` ${p.url}` : ""}`);
  return [...specs, ...prs].join("; ") || "-";
}

function row(e: WorktreeEntry): string {
  const state =
    e.state === undefined ? "not checked out" : e.state === "dirty" ? `dirty (${e.changes} change${e.changes === 1 ? "" : "s"})` : e.state;
  const where = e.path === undefined ? "-" : `${e.path}${e.kind === "primary" ? " (primary)" : ""}`;
  const branch = e.branch ?? `(detached ${e.head?.slice(0, 7) ?? ""})`;
  return `| ${branch} | ${where} | ${state} | ${upstreamText(e)} | ${ottoText(e)} |`;
}

const list: Verb = {
  path: ["list"],
  args: "[--repo <repo>]",
  summary: "List a repo's worktrees or branches: state, ahead/behind upstream, otto specs and PRs using them",
  options: REPO,
  async run({ values }, ctx) {
    const repo = await repoFor(values, ctx);
    const prDir = prDocumentsDir(xdgPaths(ctx.runtime.env).ottoDataDir);
    const listing = await listWorktrees(repo, { git: gitOf(ctx.runtime), prDir, specs: activeSpecs });
    const where = repo.git_strategy === "worktree" ? `, worktrees under ${worktreeDirOf(repo)}` : "";
    const heading = `Repo '${repo.name}' (${repo.git_strategy} strategy${where}):`;
    const table = ["| branch | path | state | upstream | otto |", "|---|---|---|---|---|", ...listing.entries.map(row)];
    const note =
      repo.git_strategy === "hands-off"
        ? ["", "Hands-off: otto does not create or switch branches here; this is what is checked out."]
        : [];
    return { title: `otto worktree: ${repo.name}`, output: [heading, "", ...table, ...note].join("\n") };
  },
};

function removedText(done: WorktreeRemoved): string[] {
  const lines = done.dir !== undefined ? [`Removed worktree ${done.dir} of repo '${done.repo}'.`] : [];
  if (done.discarded.length > 0)
    lines.push(`Discarded ${done.discarded.length} uncommitted change(s) (--force): ${done.discarded.slice(0, 10).join(", ")}`);
  if (done.branchDeleted && done.branch !== undefined) {
    lines.push(`Deleted branch '${done.branch}'.`);
    if (done.unpushed.length > 0) {
      lines.push(
        `It had ${done.unpushed.length} commit(s) on no remote (--force): ${done.unpushed.join(", ")}. Recover with: git -C ${done.primary} branch ${done.branch} ${done.unpushed[0] ?? ""}`,
      );
    }
  }
  return [...lines, ...done.notes];
}

const remove: Verb = {
  path: ["remove"],
  args: "<name> [--repo <repo>] [--force] [--delete-branch]",
  summary: "Remove a worktree (refuses with uncommitted changes unless --force); --delete-branch also deletes its branch",
  options: { ...REPO, force: { type: "boolean" }, "delete-branch": { type: "boolean" } },
  positionals: { min: 1, max: 1 },
  async run({ values, positionals }, ctx) {
    const repo = await repoFor(values, ctx);
    const name = positionals[0] ?? "";
    const done = await removeWorktree(repo, name, {
      force: values.force === true,
      deleteBranch: values["delete-branch"] === true,
      git: gitOf(ctx.runtime),
    });
    return { title: `otto worktree: removed ${name}`, output: removedText(done).join("\n") };
  },
};

/** /otto-worktree: worktrees and branches of a tracked repo, by its git strategy. */
export function worktreeCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    { name: "otto-worktree", summary: "create, list and remove worktrees of a tracked repo", verbs: [add, list, remove] },
    runtime,
  );
}
