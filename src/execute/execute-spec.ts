import { describeResolvedChecks } from "../analysis/index.ts";
import { OttoError, isOttoError, errorLine } from "../core/index.ts";
import { Account, formatUsage, ledgerFile, medianTaskCost, readLedger, withAccount } from "../cost/index.ts";
import { resolveRoleModel, sameModelNote } from "../session/index.ts";
import { checkGate, listSpecs, phases, readArtifacts, resolveSpec, specPaths, summarizeTasks, type SpecPaths } from "../spec/index.ts";
import { runBaseline } from "./check-baseline.ts";
import { runFinalChecks } from "./final-checks.ts";
import { summaryOf } from "./commit-message.ts";
import { readDocs, relativeSpecDir, type SpecContext } from "./context.ts";
import { alignDocs, docsDue } from "./docs-align.ts";
import { committedPhases, ottoCommits } from "./git.ts";
import { assertCommitIdentity, gitDir, snapshotGitControl } from "../workspace/index.ts";
import { unsandboxedNote } from "../sandbox/index.ts";
import { budgetStopped, cancelled, counted } from "./pass.ts";
import { childAccount, estimateLine } from "./cost.ts";
import { phasesToRun, startChanges } from "./plan.ts";
import { renderReport, STOPPED_BY_BUDGET, type RunReport } from "./progress.ts";
import { lockRun, type Release } from "./run-lock.ts";
import { runPhase } from "./run-phase.ts";
import { closeBaseline, openBaseline } from "./baseline.ts";
import { RunSessions, runSessionsFile } from "./run-sessions.ts";
import { TaskStore } from "./task-store.ts";
import type { ExecuteDeps, Models } from "./types.ts";
import { loadRuleSet, type RuleSet } from "../rules/index.ts";

export interface ExecuteResult {
  title: string;
  output: string;
  report: RunReport;
}

/** The spec a command works on, gated on all four documents existing. */
export function resolveExecuteTarget(repoRoot: string, flag: string | undefined): { slug: string; paths: SpecPaths } {
  const slug = resolveSpec(listSpecs(repoRoot), flag);
  checkGate("execute", readArtifacts(repoRoot, slug), slug);
  return { slug, paths: specPaths(repoRoot, slug) };
}

export async function resolveModels(deps: ExecuteDeps): Promise<Models> {
  const roleDeps = { client: deps.client, sessionID: deps.parentID, directory: deps.repoRoot, once: deps.once, log: deps.log };
  const primary = await resolveRoleModel("primary", deps.models.primary, roleDeps);
  const secondary = await resolveRoleModel("secondary", deps.models.secondary, roleDeps);
  return {
    primary: primary.model,
    secondary: secondary.model,
    notes: [primary.note, secondary.note, deps.models.secondary ? undefined : sameModelNote(primary.model, secondary.model)].filter(
      (n): n is string => n !== undefined,
    ),
  };
}

/**
 * Holds the spec's run lock while `fn` runs. Under the lock, the sessions a killed run left open are
 * deleted (`cleaned` counts them), and `fn` gets deps that record the sessions this run opens.
 */
export async function withRunLock<T>(deps: ExecuteDeps, slug: string, fn: (run: ExecuteDeps, cleaned: number) => Promise<T>): Promise<T> {
  const dir = await gitDir(deps.git, deps.repoRoot);
  if (!dir)
    throw new OttoError(
      "not_a_repository",
      `${deps.repoRoot} is not a git repository; otto commits each phase.`,
      "Run `git init`, then run the command again.",
    );
  // Before any session: a phase's work is committed, and git must know who commits it.
  await assertCommitIdentity(deps.git, deps.repoRoot, "run /otto-spec execute again");
  const release: Release = await lockRun(dir, slug);
  try {
    const { sessions, cleaned } = await RunSessions.resume(runSessionsFile(dir, slug), {
      client: deps.client,
      directory: deps.repoRoot,
      log: deps.log,
    });
    const baseline = await openBaseline(deps.git, deps.repoRoot, dir, slug);
    const specInclude = [`${relativeSpecDir(deps.repoRoot, specPaths(deps.repoRoot, slug))}/`];
    // Git's config and hooks before any session of this run: a commit runs hooks with otto's environment.
    const gitControl = await snapshotGitControl(deps.repoRoot, { env: deps.env });
    const result = await fn({ ...deps, sessions, baseline, specInclude, gitControl }, cleaned);
    await closeBaseline(deps.git, deps.repoRoot, dir, slug, baseline, specInclude);
    return result;
  } finally {
    await deps.background.settle();
    await release();
  }
}

/** What every prompt of the run gets about the spec; the docs are read again before each phase. */
export async function baseContext(deps: ExecuteDeps, slug: string, paths: SpecPaths): Promise<SpecContext> {
  return {
    slug,
    paths,
    specDir: relativeSpecDir(deps.repoRoot, paths),
    docs: await readDocs(paths),
    codebaseSummary: await deps.codebaseSummary(deps.repoRoot),
    checkCommands: deps.settings.verify.length ? deps.settings.verify.join("\n") : undefined,
    rules: await loadTeamRules(deps),
  };
}

/** The working tree's rules and the user's; a file otto cannot read is logged, never a stop. */
async function loadTeamRules(deps: ExecuteDeps): Promise<RuleSet> {
  const set = await loadRuleSet(deps.repoRoot, deps.env);
  for (const problem of set.problems) deps.log.log("warn", `team rules: ${problem}`);
  return set;
}

/**
 * `/otto-spec execute`: the outer loop. Deterministic and resumable: tasks.md holds the task
 * statuses, git's history holds which phases are committed (trailers), so a re-run after any
 * crash runs only what is left: completed tasks never run again, a committed phase is never
 * committed again. Task failures never stop the loop; a failed commit or a cancel does.
 */
export async function executeSpec(deps: ExecuteDeps, flag?: string): Promise<ExecuteResult> {
  const started = Date.now();
  const { slug, paths } = resolveExecuteTarget(deps.repoRoot, flag);
  const userSignal = deps.signal;
  const run = runAccount(deps, `execute ${slug}`, slug, started);
  // The run's deps shadow the command's: only they record the sessions the run opens. Its signal
  // also fires when the budget is reached, so a budget stop ends the run as a cancel does.
  return withRunLock({ ...deps, signal: userSignal ? AbortSignal.any([userSignal, run.signal]) : run.signal }, slug, (deps, cleaned) =>
    withAccount(run, async () => {
      const store = await TaskStore.open(paths.tasks, slug, { onLockWait: deps.onLockWait });
      let commits = await ottoCommits(deps.git, deps.repoRoot, slug);
      const committed = committedPhases(commits);
      const recovered = startChanges(store.list);
      for (const change of recovered) await store.set(change.id, change.status);
      const models = await resolveModels(deps);
      const base = await baseContext(deps, slug, paths);
      const report: RunReport = {
        slug,
        list: store.list,
        phases: [],
        recovered,
        cancelled: false,
        notes: [
          ...models.notes,
          ...cleanedNote(cleaned),
          ...[unsandboxedNote(deps.settings.sandbox ?? "auto", deps.env)].filter((n) => n !== undefined),
        ],
        durationMs: 0,
        budget: deps.budget,
      };
      const toRun = new Set(phasesToRun(store.list, new Set(committed.keys())));
      const left = store.list.tasks.filter((t) => t.status !== "completed" && t.status !== "skipped").length;
      report.estimate = await comparableCost(deps, left);
      if (report.estimate) deps.progress(report.estimate);
      if (deps.settings.checks) report.checks = describeResolvedChecks(deps.settings.checks);
      // Before the first phase touches the tree: what already fails is not this run's doing.
      const baseline = toRun.size > 0 ? await runBaseline(deps, slug, paths.history) : undefined;
      if (baseline) {
        report.baseline = baseline.line;
        deps = { ...deps, checkBaseline: baseline.results };
      }

      const phaseAccounts = new Map<number, Account>();
      for (const { group } of phases(store.list)) {
        if (!toRun.has(group)) {
          report.phases.push({ group, results: [], skipped: [], steps: [], earlier: committed.get(group)?.slice(0, 7) });
          continue;
        }
        const ctx: SpecContext = { ...base, docs: await readDocs(paths), phaseSummaries: phaseSummaries(commits) };
        try {
          const phase = childAccount(`phase ${group}`);
          phaseAccounts.set(group, phase);
          report.phases.push(
            await withAccount(phase, () => runPhase({ deps, models, store, ctx, group, committed: committed.get(group) })),
          );
        } catch (error) {
          report.phases.push({
            group,
            results: [],
            skipped: [],
            steps: [],
            note: isOttoError(error) && error.code === "commit_failed" ? "the commit failed" : "stopped by an error",
          });
          report.error = `phase ${group}: ${errorLine(error)}`;
          break;
        }
        commits = await ottoCommits(deps.git, deps.repoRoot, slug);
        if (cancelled(deps)) break;
      }

      const counts = summarizeTasks(store.list).byStatus;
      report.cancelled = cancelled(deps);
      if (!report.cancelled && !report.error && counts.pending + counts.running === 0 && deps.settings.docsAlignment && docsDue(commits)) {
        try {
          report.docs = await withAccount(childAccount("docs alignment"), () => alignDocs(deps, models, base, commits));
        } catch (error) {
          report.docs = { steps: [], note: "the commit failed" };
          report.error = `documentation: ${errorLine(error)}`;
        }
      } else if (!deps.settings.docsAlignment) {
        report.docs = { steps: [], note: "skipped (spec.docs_alignment is off)" };
      }
      const stopped = budgetStopped(deps);
      report.cancelled = cancelled(deps) && !stopped;
      // The verdict: a run whose checks fail at its end is not done, whatever its tasks say.
      if (!report.cancelled && !stopped && !report.error && toRun.size > 0) report.verdict = await runFinalChecks(deps);
      report.list = await store.reload();
      report.durationMs = Date.now() - started;
      // Every session of the run closed and counted: the totals are exact.
      await counted(deps);
      report.usage = run.usage;
      for (const phase of report.phases) {
        const usage = phaseAccounts.get(phase.group)?.usage;
        if (usage && usage.requests > 0) phase.usage = usage;
      }
      if (stopped)
        report.budgetStop = {
          spent: run.spentLine(),
          undone: undoneWork(report),
          resume: `/otto-spec execute --spec ${slug} --budget <more>`,
        };
      const after = summarizeTasks(report.list);
      const title = `otto-spec execute ${slug}: ${after.byStatus.completed}/${after.total} completed${after.byStatus.failed ? `, ${after.byStatus.failed} failed` : ""}${report.cancelled ? " (cancelled)" : ""}${stopped ? " (budget reached)" : ""}${report.verdict && !report.verdict.verified ? " (unverified)" : ""}`;
      deps.toast(
        `${title} — ${formatUsage(run.usage)}`,
        stopped || report.error || after.byStatus.failed || (report.verdict && !report.verdict.verified) ? "warning" : "success",
      );
      return { title, output: renderReport(report), report };
    }),
  );
}

/**
 * A run's account: everything its sessions spend, under its budget, labelled for the ledger and
 * the report (`/otto-cost`). The repository is its top-level path: the estimate compares runs of
 * the same checkout.
 */
export function runAccount(deps: Pick<ExecuteDeps, "repoRoot" | "budget">, name: string, slug: string, started: number): Account {
  return new Account(name, {
    labels: { repo: deps.repoRoot, spec: slug, run: new Date(started).toISOString() },
    ...(deps.budget ? { budget: deps.budget } : {}),
  });
}

/** What comparable tasks of this repository cost (the ledger's median) × the tasks left, beside the budget; undefined without records. */
export async function comparableCost(
  deps: Pick<ExecuteDeps, "env" | "repoRoot" | "budget" | "log">,
  tasksLeft: number,
): Promise<string | undefined> {
  if (tasksLeft === 0) return undefined;
  try {
    return estimateLine(medianTaskCost(await readLedger(ledgerFile(deps.env)), deps.repoRoot), tasksLeft, deps.budget);
  } catch (error) {
    deps.log.log("debug", "otto: could not read the cost ledger for an estimate", { error: errorLine(error) });
    return undefined;
  }
}

/** What a run stopped by its budget did not do: tasks not completed, phases not committed, the docs pass. */
function undoneWork(report: RunReport): string[] {
  const open = report.list.tasks.filter((t) => t.status === "pending" || t.status === "running");
  const groups = [...new Set(report.list.tasks.map((t) => t.parallel_group))];
  const phases = groups.filter(
    (g) => open.some((t) => t.parallel_group === g) || report.phases.some((p) => p.group === g && p.note === STOPPED_BY_BUDGET),
  );
  return [
    ...open.map((t) => `${t.id} (pending)`),
    ...phases.map((g) => `phase ${g} (not committed)`),
    ...(report.docs ? [] : ["documentation alignment"]),
  ];
}

/** The commit summaries of the committed phases, oldest first: what later phases are told. */
export function phaseSummaries(commits: readonly { trailer: { kind: string }; message: string }[]): string | undefined {
  const text = commits
    .filter((c) => c.trailer.kind !== "docs")
    .reverse()
    .map((c) => summaryOf(c.message))
    .join("\n\n---\n\n");
  return text.trim() ? text : undefined;
}

/** Said in the run's output, so sessions vanishing from the list are explained. */
export function cleanedNote(cleaned: number): string[] {
  return cleaned ? [`cleaned up ${cleaned} session${cleaned === 1 ? "" : "s"} left by the crashed run.`] : [];
}
