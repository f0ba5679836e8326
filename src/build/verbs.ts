import { OttoError, formatError } from "../core/index.ts";
import { addSpec, createSpecDeps, generateTasks, listSpecs, runDocumentStage } from "../spec/index.ts";
import { placeRun } from "../repo/index.ts";
import { unsandboxedNote } from "../sandbox/index.ts";
import {
  describeVerdict,
  failingHeadline,
  ignoredLine,
  snapshotGitControl,
  type GitControlSnapshot,
  type RunVerdict,
} from "../workspace/index.ts";
import { formatUsage, ledgerFile, readLedger, type Account } from "../cost/index.ts";
import type { Env } from "../core/index.ts";
import { createBuildDeps, repoRootOf, type BuildInput } from "./build-deps.ts";
import { noteOf } from "./loop-end.ts";
import { buildAccount, runBuild, type TargetResult } from "./run-build.ts";
import { costBeforeRun, spendTable, spentLine } from "./spend-views.ts";
import { BuildStore, crashed, type BuildState, type BuildTarget } from "./state.ts";
import { resolveTargets, targetFlag, type TargetFlags } from "./targets.ts";
import { taskSource } from "./task-source.ts";
import { unverifiedHeadline } from "./verdict.ts";

export interface VerbResult {
  title: string;
  output: string;
  /** The verb failed after doing part of its work: headless, the command exits non-zero. */
  failed?: boolean;
}

export interface BuildResult extends VerbResult {
  repoRoot: string;
  /** The one spec built, when it is a spec of otto's (what `--pr` describes the PR from). */
  spec?: string;
  /** Every target is done. */
  complete: boolean;
  /** "npm test fails": a done target's checks fail at its end (`--pr` opens no PR, src/tools/run-pr.ts). */
  unverified?: string;
  /** Git's config and hooks before the builder ran: `--pr` pushes only if they are unchanged. */
  gitControl: GitControlSnapshot;
}

export interface RunFlags extends TargetFlags {
  maxIterations?: number;
  stagnation?: number;
  /** Commit on the current branch even when it is the default branch. */
  here?: boolean;
  /** --budget <usd> / --max-tokens <n> (parsed by src/cost's runBudget). */
  budget?: string;
  maxTokens?: string;
}

/** Defaults of `--max-iterations` and of the stagnation limit K. */
export const MAX_ITERATIONS = 50;
export const STAGNATION_LIMIT = 3;

/** `/otto-build [--spec s | --all | --openspec c]`: the loop, inside the tool call. */
export async function buildVerb(input: BuildInput, flags: RunFlags): Promise<BuildResult> {
  const deps = await createBuildDeps({ ...input, budget: { budget: flags.budget, maxTokens: flags.maxTokens } });
  const targets = resolveTargets(deps.repoRoot, flags);
  if (deps.budget)
    deps.budget = {
      ...deps.budget,
      fix: `Resume with /otto-build ${targets.length === 1 && targets[0] ? targetFlag(targets[0]) : "--all"} --budget <usd> (or --max-tokens <n>): the loop goes on where it stopped, and only the new run's spend counts toward the new budget.`,
    };
  const estimate = await estimateLine(deps.repoRoot, targets, deps.budget, input.runtime.env);
  if (estimate) input.progress(`otto build: ${estimate}`);
  const account = buildAccount(deps, targets);
  // Started on the default branch, the loop commits on a branch of its own (src/repo/run-branch.ts).
  const only = targets.length === 1 ? targets[0] : undefined;
  const placed = await placeRun({
    root: deps.repoRoot,
    slug: only ? only.name : "build",
    here: flags.here === true,
    repos: deps.repos ?? [],
    git: { env: deps.env },
  });
  const gitControl = await snapshotGitControl(deps.repoRoot, { env: deps.env });
  const results = await runBuild(deps, targets, {
    maxIterations: flags.maxIterations ?? MAX_ITERATIONS,
    stagnationLimit: flags.stagnation ?? STAGNATION_LIMIT,
    account,
  });
  const rendered = renderResults(results, targets.length, account);
  const unboxed = unsandboxedNote(deps.sandbox ?? "auto", deps.env ?? process.env);
  const before = [placed.note, estimate, unboxed && `Note: ${unboxed}`].filter(
    (line): line is string => typeof line === "string" && line !== "",
  );
  return {
    title: rendered.title,
    output: [rendered.head, ...before, rendered.body].join("\n\n"),
    repoRoot: deps.repoRoot,
    ...(only?.kind === "spec" ? { spec: only.name } : {}),
    complete: results.length === targets.length && results.every((r) => r.end.kind === "done"),
    ...(rendered.unverified ? { unverified: failingHeadline(rendered.unverified) } : {}),
    gitControl,
  };
}

/** "Comparable tasks here cost …" from the ledger, beside the budget in force; undefined without records. */
async function estimateLine(
  repoRoot: string,
  targets: readonly BuildTarget[],
  budget: Parameters<typeof costBeforeRun>[2],
  env: Env,
): Promise<string | undefined> {
  let left = 0;
  for (const target of targets) {
    const view = await taskSource(repoRoot, target)
      .read()
      .catch(() => undefined);
    if (view) left += view.total - view.done;
  }
  const entries = await readLedger(ledgerFile(env)).catch(() => []);
  return costBeforeRun(entries, repoRoot, budget, left);
}

/** The verdict of a done target whose checks fail at its end. */
function unverifiedOf(r: TargetResult): RunVerdict | undefined {
  return r.end.kind === "done" && r.end.verdict && !r.end.verdict.verified ? r.end.verdict : undefined;
}

function renderResults(
  results: readonly TargetResult[],
  planned: number,
  account: Account,
): { title: string; head: string; body: string; unverified?: RunVerdict } {
  const lines: string[] = [];
  for (const r of results) {
    const what = `${r.target.kind === "openspec" ? "OpenSpec change" : "spec"} ${r.target.name}`;
    lines.push(
      `- **${what}**: ${noteOf(r.end)}${r.commit ? ` · committed ${r.commit}` : ""}${r.archive?.archivedTo ? ` · archived to ${r.archive.archivedTo}` : ""}${r.kept?.length ? ` · left uncommitted (they had your changes before the loop and the builder changed them too): ${r.kept.join(", ")}` : ""}${r.ignored?.length ? ` · ${ignoredLine(r.ignored)}` : ""}`,
    );
    if (r.archive?.note) lines.push(`  - ${r.archive.note}`);
    if (r.baseline)
      lines.push(
        `  - ${r.baseline.replace(/^baseline/, "Baseline")} (a check that already failed sends the builder to fix it only if it gets worse)`,
      );
    if (r.end.kind === "done" && r.end.verdict) lines.push(`  - Verdict: ${describeVerdict(r.end.verdict)}`);
    if (r.sessionNote) lines.push(`  - ${r.sessionNote}`);
    if (r.end.kind !== "done")
      lines.push(`  - progress: ${r.end.view.done}/${r.end.view.total} tasks done · builder session ${r.sessionID}`);
    if (r.end.kind === "stop" && r.end.reason === "budget")
      lines.push(
        `  - left undone: ${r.end.view.total - r.end.view.done} of ${r.end.view.total} task(s)${r.end.view.next ? `, from ${r.end.view.next.id} ${r.end.view.next.title}` : " (the final verification)"}`,
      );
    if (r.total.requests > r.spend.requests) lines.push(`  - the loop's earlier runs included: ${formatUsage(r.total)} in all`);
  }
  lines.push("", spendTable(results, account.usage));
  const last = results[results.length - 1];
  const skipped = planned - results.length;
  if (skipped > 0) lines.push("", `${skipped} more spec(s) not started because this one did not finish.`);
  const unverified = results.map(unverifiedOf).find((v) => v !== undefined);
  const next = last && last.end.kind !== "done" ? nextStep(last) : unverified ? unverifiedStep(unverified) : "review the commit (git show)";
  lines.push("", `Next step: ${next}`);
  const title = last ? `otto build: ${last.target.name} ${noteOf(last.end).split(":")[0]}` : "otto build";
  // An unverified build says so first, as execute's summary does (docs/execute.md).
  const head = `## otto build: ${spentLine(account)}${unverified ? ` — unverified: ${unverifiedHeadline(unverified)}` : ""}`;
  return { title, head, body: lines.join("\n"), ...(unverified ? { unverified } : {}) };
}

function unverifiedStep(verdict: RunVerdict): string {
  const before = verdict.failing.every((f) => f.before) ? " (it failed before the build too: the build's work did not make it pass)" : "";
  return `every task is done and committed, but the build is unverified: ${failingHeadline(verdict)} at its end${before}. Review the commit (git show) and fix the failing check; open no pull request until it passes`;
}

function nextStep(r: TargetResult): string {
  const flag = targetFlag(r.target);
  if (r.end.kind === "pause") return `continue the conversation in the builder session, then /otto-build ${flag} to resume`;
  if (r.end.kind === "failed") return `look at the builder session ${r.sessionID}, fix the cause, then /otto-build ${flag}`;
  if (r.end.kind === "stop" && r.end.reason === "budget")
    return `/otto-build ${flag} --budget <usd> to resume where it stopped (only the new run's spend counts toward it)`;
  return `look at the builder session ${r.sessionID} and the task list, then /otto-build ${flag} to resume`;
}

/** `/otto-build status`: every loop otto knows of in this repository. */
export async function statusVerb(directory: string): Promise<VerbResult> {
  const states = await new BuildStore(await repoRootOf(directory)).list();
  if (states.length === 0) return { title: "otto build: no loops", output: "No build loops yet.\n\nNext step: /otto-build --spec <slug>" };
  // A loop whose OpenCode process is gone (killed) is no longer running, whatever its file says.
  const shown = (s: BuildState): string =>
    crashed(s) ? "stopped (process gone)" : s.status === "done" && s.verified === false ? unverifiedStatus(s) : s.status;
  const rows = states.map(
    (s) =>
      `| ${s.target.kind} ${s.target.name} | ${shown(s)} | ${s.phase} | ${s.iteration}/${s.maxIterations} | ${s.progress ? `${s.progress.done}/${s.progress.total}` : "-"} | ${s.spend ? formatUsage(s.spend) : "-"} | ${s.sessionID ?? "-"} | ${s.note ?? ""} |`,
  );
  const output = [
    "## otto build loops",
    "",
    "| target | status | phase | turns | tasks done | spent | builder session | note |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
  return { title: `otto build: ${states.filter((s) => s.status === "running" && !crashed(s)).length} running`, output };
}

/** "done, unverified: npm test fails (it failed before the build too)", or without failing checks (none were found). */
function unverifiedStatus(state: BuildState): string {
  const failing = state.failing ?? [];
  return failing.length ? `done, unverified: ${unverifiedHeadline({ verified: false, results: [], failing })}` : "done, unverified";
}

/** `/otto-build stop`: asks the running loops (or the one of --spec/--openspec) to stop; they stop within a second. */
export async function stopVerb(directory: string, flags: TargetFlags): Promise<VerbResult> {
  const store = new BuildStore(await repoRootOf(directory));
  const running = (await store.list()).filter((s) => s.status === "running" && !crashed(s));
  const wanted = flags.spec ?? flags.openspec;
  const chosen: BuildState[] = wanted ? running.filter((s) => s.target.name === wanted || s.target.name.startsWith(wanted)) : running;
  if (chosen.length === 0)
    return { title: "otto build: nothing to stop", output: "No build loop is running.\n\nNext step: /otto-build status" };
  for (const s of chosen) await store.requestStop(s.target);
  const names = chosen.map((s) => s.target.name).join(", ");
  return {
    title: `otto build: stop requested (${names})`,
    output: `Asked ${names} to stop; the current turn is aborted and the state is kept.\n\nNext step: /otto-build status`,
  };
}

/** `/otto-build plan <prompt>`: add → requirements → research → design → task generate, unattended. */
export async function planVerb(input: BuildInput, prompt: string): Promise<VerbResult> {
  const deps = await createSpecDeps(input);
  const before = new Set(listSpecs(deps.repoRoot).map((s) => s.slug));
  const done: string[] = [];
  const added = await addSpec(deps, prompt);
  const slug = listSpecs(deps.repoRoot)
    .map((s) => s.slug)
    .find((s) => !before.has(s));
  if (!slug) throw new OttoError("plan_failed", `The spec was not created: ${added.output.slice(0, 500)}`, `/otto-spec add "${prompt}"`);
  done.push(`add: ${added.title}`);
  try {
    for (const stage of ["requirements", "research", "design"] as const)
      done.push(`${stage}: ${(await runDocumentStage(deps, stage, slug)).title}`);
    done.push(`task generate: ${(await generateTasks(deps, slug)).title}`);
  } catch (error) {
    const output = [`## otto build plan: ${slug}`, "", ...done.map((d) => `- ${d}`), "", formatError(error)].join("\n");
    return { title: `otto build plan: ${slug} stopped`, output, failed: true };
  }
  const output = [
    `## otto build plan: ${slug}`,
    "",
    ...done.map((d) => `- ${d}`),
    "",
    `Review .otto/specs/${slug}/ (requirements, research, design, tasks).`,
    "",
    `Next step: /otto-spec execute --spec ${slug} --pr (the tasks in phases, then the PR), or /otto-build --spec ${slug} --pr (one builder session).`,
  ].join("\n");
  return { title: `otto build plan: ${slug} ready for review`, output };
}
