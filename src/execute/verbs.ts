import { runBudget } from "../cost/index.ts";
import { sendNotification } from "../notify/index.ts";
import fs from "node:fs";
import { placeRun } from "../repo/index.ts";
import { parseTasks, specPaths } from "../spec/index.ts";
import { createExecuteDeps, type ExecuteInput } from "./deps.ts";
import { executeSpec, resolveExecuteTarget } from "./execute-spec.ts";
import type { ExecuteDeps } from "./types.ts";
import { failingHeadline, snapshotGitControl, type GitControlSnapshot } from "../workspace/index.ts";
import { runOneTask } from "./task-run.ts";

/**
 * The verbs as the tools call them: `/otto-spec execute`, the typed `otto_spec_execute` tool and
 * `/otto-spec task run` share these. Both block until the run ends (`opencode run` exits at its
 * session's first idle, so a headless run must finish inside the tool call) and report progress
 * through `input.progress` (the tool's live title).
 */
export interface RunOptions {
  /** --here: commit on the current branch even when it is the default branch. */
  here?: boolean;
  /** --budget <usd>: the run stops cleanly once it has spent this (default limits.run_usd). */
  budget?: string | number;
  /** --max-tokens <n>: likewise in tokens (default limits.run_tokens). */
  maxTokens?: string | number;
}

/** The run's budget: the flags over otto.jsonc's limits; how to resume names the verb. */
function withBudget(deps: ExecuteDeps, options: RunOptions, resume: string): ExecuteDeps {
  const budget = runBudget(
    { budget: options.budget, maxTokens: options.maxTokens },
    deps.limits ?? {},
    `Resume with ${resume} --budget <more> (or --max-tokens): completed tasks are kept, and the new run gets a budget of its own.`,
  );
  return budget ? { ...deps, budget } : deps;
}

export interface VerbResult {
  title: string;
  output: string;
  /** The spec that ran, and where: what `--pr` needs. */
  slug: string;
  repoRoot: string;
  /** Every task of the spec is completed (or skipped). */
  complete: boolean;
  /** The checks failing at the run's end ("npm test fails"): the run is not verified, whatever its tasks say. */
  unverified?: string;
  /** Git's config and hooks before the run's sessions: `--pr` pushes only if they are unchanged. */
  gitControl: GitControlSnapshot;
}

/** Puts the run on the spec's branch when it starts on the default branch (src/repo/run-branch.ts). */
async function placed(deps: ExecuteDeps, slug: string, options: RunOptions): Promise<string | undefined> {
  const result = await placeRun({
    root: deps.repoRoot,
    slug,
    here: options.here === true,
    repos: deps.repos ?? [],
    git: { env: deps.env },
  });
  if (result.switched) deps.progress(`otto: on ${result.branch ?? "?"}`);
  return result.note;
}

function finished(
  deps: ExecuteDeps,
  slug: string,
  run: { title: string; output: string; note: string | undefined; gitControl: GitControlSnapshot; unverified?: string },
): VerbResult {
  const tasks = parseTasks(fs.readFileSync(specPaths(deps.repoRoot, slug).tasks, "utf8")).tasks.tasks;
  const complete = tasks.length > 0 && tasks.every((t) => t.status === "completed" || t.status === "skipped");
  // The summary's first line names the run and its spend; a note on where it ran comes after it.
  const [head = "", ...rest] = run.output.split("\n");
  const output = run.note ? [head, "", run.note, ...rest].join("\n") : run.output;
  return {
    title: run.title,
    output,
    slug,
    repoRoot: deps.repoRoot,
    complete,
    gitControl: run.gitControl,
    ...(run.unverified ? { unverified: run.unverified } : {}),
  };
}

export async function executeVerb(input: ExecuteInput, spec?: string, options: RunOptions = {}): Promise<VerbResult> {
  const created = await createExecuteDeps(input);
  const { slug } = resolveExecuteTarget(created.repoRoot, spec);
  const deps = withBudget(created, options, `/otto-spec execute --spec ${slug}`);
  const note = await placed(deps, slug, options);
  const gitControl = await snapshotGitControl(deps.repoRoot, { env: deps.env });
  const { title, output, report } = await executeSpec(deps, slug);
  const unverified = report.verdict && !report.verdict.verified ? failingHeadline(report.verdict) : undefined;
  const result = finished(deps, slug, { title, output, note, gitControl, ...(unverified ? { unverified } : {}) });
  // People who configured notifications hear about a finished run wherever they are (never throws).
  await sendNotification(input.runtime, input.directory, {
    kind: "spec_finished",
    title,
    text: result.output.split("\n").slice(0, 12).join("\n"),
  });
  return result;
}

export async function taskRunVerb(input: ExecuteInput, spec?: string, id?: string, options: RunOptions = {}): Promise<VerbResult> {
  const created = await createExecuteDeps(input);
  const { slug } = resolveExecuteTarget(created.repoRoot, spec);
  const deps = withBudget(created, options, `/otto-spec task run --spec ${slug}${id ? ` --id ${id}` : ""}`);
  const note = await placed(deps, slug, options);
  const gitControl = await snapshotGitControl(deps.repoRoot, { env: deps.env });
  const { title, output, budgetReached, unverified } = await runOneTask(deps, slug, id);
  const result = finished(deps, slug, { title, output, note, gitControl, ...(unverified ? { unverified } : {}) });
  // A run the budget stopped is news wherever people listen (execute notifies at every end).
  if (budgetReached)
    await sendNotification(input.runtime, input.directory, {
      kind: "spec_finished",
      title,
      text: result.output.split("\n").slice(0, 12).join("\n"),
    });
  return result;
}
