import { describeResolvedChecks } from "../analysis/index.ts";
import { OttoError } from "../core/index.ts";
import { formatUsage, withAccount } from "../cost/index.ts";
import { budgetStopLines, childAccount } from "./cost.ts";
import { budgetStopped, cancelled, counted } from "./pass.ts";
import { runBaseline } from "./check-baseline.ts";
import { renderCommitMessage } from "./commit-message.ts";
import { commitAll, failingHeadline, ignoredLine, judgeRun } from "../workspace/index.ts";
import { baselineOf, guardOf } from "./baseline.ts";
import { keptLine } from "./progress.ts";
import { ottoCommits } from "./git.ts";
import { formatDuration } from "./history.ts";
import { pickTask } from "./plan.ts";
import { runTask } from "./run-task.ts";
import {
  baseContext,
  cleanedNote,
  comparableCost,
  phaseSummaries,
  resolveExecuteTarget,
  resolveModels,
  runAccount,
  withRunLock,
} from "./execute-spec.ts";
import { TaskStore } from "./task-store.ts";
import type { ExecuteDeps } from "./types.ts";
import { blockingResults, verifyFailure, verifyPhase } from "./verify-phase.ts";
import { checksField, filesField } from "./evidence.ts";

/**
 * `/otto-spec task run [--id <task>]`: one task, as execute runs it (brief, attempts with
 * retries, history), then spec.verify with its fix sessions and a commit of the working tree
 * with the trailer `Otto-Task: <slug>/<id>`; the task is failed when verification stays red.
 * Without --id, the only runnable task. A failed or skipped task may be run this way; a
 * completed one never runs again.
 */
export async function runOneTask(
  deps: ExecuteDeps,
  flag: string | undefined,
  id: string | undefined,
): Promise<{ title: string; output: string; unverified?: string; budgetReached?: boolean }> {
  const { slug, paths } = resolveExecuteTarget(deps.repoRoot, flag);
  const run = runAccount(deps, `task run ${slug}`, slug, Date.now());
  // The run's deps shadow the command's: only they record the sessions the run opens. Its signal
  // also fires when the budget is reached: the task stops as on a cancel and goes back to pending.
  return withRunLock({ ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, run.signal]) : run.signal }, slug, (deps, cleaned) =>
    withAccount(run, async () => {
      const store = await TaskStore.open(paths.tasks, slug, { onLockWait: deps.onLockWait });
      for (const task of store.list.tasks.filter((t) => t.status === "running")) await store.set(task.id, "pending");
      const picked = pickTask(store.list, id);
      if ("error" in picked) {
        const fix = picked.candidates.length
          ? `Pass --id with one of: ${picked.candidates.join(", ")} (e.g. /otto-spec task run --spec ${slug} --id ${picked.candidates[0]})`
          : `See the statuses with /otto-spec task list --spec ${slug}`;
        throw new OttoError("task_not_runnable", picked.error, fix);
      }
      const { task } = picked;
      const estimate = await comparableCost(deps, 1);
      if (estimate) deps.progress(estimate);
      const models = await resolveModels(deps);
      const commits = await ottoCommits(deps.git, deps.repoRoot, slug);
      const ctx = { ...(await baseContext(deps, slug, paths)), phaseSummaries: phaseSummaries(commits) };
      // As execute does: what already fails before the task is not the task's doing.
      const baseline = await runBaseline(deps, slug, paths.history);
      if (baseline) deps = { ...deps, checkBaseline: baseline.results };
      deps.progress(`${task.id}: running`);
      // Named `task <id>`, as execute names its tasks: the estimate finds them in the ledger by it.
      const account = childAccount(`task ${task.id}`);
      const result = await withAccount(account, () =>
        runTask({ deps, models, ctx, store, task, parallel: [], onAttempt: (n) => deps.progress(`${task.id}: attempt ${n}`) }),
      );
      const head = `## otto-spec task run: ${task.id} ${result.status} (${result.attempts} attempt${result.attempts === 1 ? "" : "s"}, ${formatDuration(result.durationMs)})`;
      const lines = [
        head,
        "",
        result.status === "completed" ? result.summary.trim() || "(no summary)" : `Reason: ${result.error ?? result.status}`,
        "",
        `History: ${result.history.join(", ") || "(none)"}`,
      ];
      if (estimate) lines.splice(1, 0, "", `Before the run: ${estimate}`);
      for (const note of cleanedNote(cleaned)) lines.push("", `Note: ${note}`);
      // The first line names the run's spend (every session closed and counted); a budget stop says so next.
      const spent = async (undone = [`${task.id} (pending)`]): Promise<void> => {
        await counted(deps);
        lines[0] = `${lines[0] ?? ""} — ${formatUsage(run.usage)}`;
        if (budgetStopped(deps))
          lines.splice(
            1,
            0,
            "",
            ...budgetStopLines({
              spent: run.spentLine(),
              undone,
              resume: `/otto-spec task run --spec ${slug} --id ${task.id} --budget <more>`,
            }),
          );
      };
      if (result.status !== "completed" || cancelled(deps)) {
        lines.push(
          "",
          `Nothing was committed. Next step: ${result.cancelled ? `/otto-spec task run --spec ${slug} --id ${task.id}${budgetStopped(deps) ? " --budget <more>" : ""}` : `read the history, then /otto-spec task run --spec ${slug} --id ${task.id}`}`,
        );
        await spent();
        return {
          title: `otto-spec task run ${task.id}: ${result.status}${budgetStopped(deps) ? " (budget reached)" : ""}`,
          output: lines.join("\n"),
          budgetReached: budgetStopped(deps),
        };
      }
      deps.progress(`${task.id}: verification`);
      const verify = await withAccount(childAccount("verification fixes"), () =>
        verifyPhase(deps, models, ctx, task.parallel_group, task.id),
      );
      if (cancelled(deps)) {
        // As execute does on a cancel: the task's work stays in the tree, uncommitted, and is not judged.
        lines.push(
          "",
          `Not verified, nothing committed: ${budgetStopped(deps) ? "the budget was reached" : "the run was cancelled"} during verification. Next step: /otto-spec execute --spec ${slug}${budgetStopped(deps) ? " --budget <more>" : ""}`,
        );
        await spent([`${task.id}: verification and its commit`]);
        return {
          title: `otto-spec task run ${task.id}: not verified${budgetStopped(deps) ? " (budget reached)" : " (cancelled)"}`,
          output: lines.join("\n"),
          budgetReached: budgetStopped(deps),
        };
      }
      // Done means verified: a red spec.verify fails the task, and its work is committed all the same.
      const unverified = verify.state === "failed" ? verifyFailure(verify, deps) : undefined;
      if (unverified) {
        await store.set(task.id, "failed", { last_error: unverified });
        lines[0] = head.replace(` ${task.id} completed `, ` ${task.id} failed verification `);
      }
      const status = unverified ? "failed" : "completed";
      const lastRound = verify.rounds.at(-1) ?? [];
      if (!unverified) await store.set(task.id, "completed", { checks: checksField(lastRound, blockingResults(deps, lastRound)) });
      const message = renderCommitMessage({
        slug,
        trailer: { kind: "task", slug, id: task.id },
        subject: `${task.id}: ${task.title}`,
        tasks: [{ id: task.id, title: task.title, status, note: unverified ? `${unverified}\n\n${result.summary}` : result.summary }],
        steps: [verify.line],
        verify: verify.state,
      });
      // No empty commit unless the task said why nothing had to change.
      const {
        sha: commit,
        kept,
        ignored,
      } = await commitAll(deps.git, deps.repoRoot, message, {
        baseline: baselineOf(deps),
        include: deps.specInclude ?? [],
        ...guardOf(deps),
        allowEmpty: result.noChanges !== undefined,
        secrets: deps.secrets,
      });
      // The sha exists only once the commit does, so this field reaches git with the next commit.
      if (commit && !unverified) await store.set(task.id, "completed", { commit });
      if (kept.length > 0) lines.push("", keptLine(kept));
      if (ignored.length > 0) lines.push("", ignoredLine(ignored));
      // The run's verdict: the task may be spared a failure it did not cause, but the run is not verified while a check fails.
      const verdict = !unverified && lastRound.length > 0 ? judgeRun(lastRound, deps.checkBaseline) : undefined;
      if (verdict && !verdict.verified) lines[0] = `${lines[0]} — unverified: ${failingHeadline(verdict)}`;
      const next = unverified
        ? `fix what spec.verify reports, then /otto-spec task run --spec ${slug} --id ${task.id}`
        : verdict && !verdict.verified
          ? `${failingHeadline(verdict)} after the task${verdict.failing.every((f) => f.before) ? " (it failed before the task too)" : ""}: the task is completed, the project is not verified; fix it before a pull request (/otto-spec task add --spec ${slug} <what must pass>)`
          : `/otto-spec execute --spec ${slug}`;
      const checks = deps.settings.checks ? [capitalise(describeResolvedChecks(deps.settings.checks))] : [];
      const base = baseline ? [capitalise(baseline.line)] : [];
      const evidence = result.files?.length
        ? [`Changed: ${filesField(result.files)}`]
        : result.noChanges !== undefined
          ? [`NO_CHANGES: ${result.noChanges}`]
          : [];
      lines.push(
        "",
        verify.line,
        ...checks,
        ...base,
        ...evidence,
        commit ? `Committed: ${commit}` : "Committed: nothing (no change left to commit)",
        "",
        `Next step: ${next}`,
      );
      await spent();
      return {
        title: `otto-spec task run ${task.id}: ${unverified ? "failed verification" : verdict && !verdict.verified ? "completed, unverified" : "completed"}, ${commit ? `committed ${commit}` : "nothing to commit"}`,
        output: lines.join("\n"),
        ...(verdict && !verdict.verified ? { unverified: failingHeadline(verdict) } : {}),
      };
    }),
  );
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
