import { isOttoError, redact } from "../../core/index.ts";
import { Account, isBudgetStop, withAccount } from "../../cost/index.ts";
import { parseDuration } from "../../config/index.ts";
import { consensusOf } from "./consensus.ts";
import { decideRound } from "./decide.ts";
import { countByPriority } from "./findings.ts";
import { fixPayload, stuckIds } from "./fix-plan.ts";
import { finishComment, renderFailureReport, renderFixReport, renderReviewReport } from "./report.ts";
import { runFix } from "./run-fix.ts";
import { isHardStop, runReviewRound, type RunContext } from "./run-review.ts";
import type { Consensus, Finding } from "./schemas.ts";
import type { RoundRecord } from "./summary.ts";

/** Hard cap on rounds: a PR that has not converged by then needs a person (docs/decisions.md). */
export const MAX_ROUNDS = 3;

function inlineError(error: unknown): string {
  if (isOttoError(error)) return `${error.message}${error.fix ? ` (${error.fix})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

export interface RoundsResult {
  rounds: RoundRecord[];
  consensus?: Consensus;
  outcome: string;
  stuck: Finding[];
  /** Set when the loop's budget stopped it: the stop's message and what was left undone. */
  budgetStop?: { message: string; undone: string };
}

/** The loop after preflight: rounds of review, report, fix, report; returns how it ended. */
export async function runRounds(ctx: RunContext, progress: (message: string) => void): Promise<RoundsResult> {
  const { setup } = ctx;
  const { config } = setup;
  const rounds: RoundRecord[] = [];
  const reportedFixed = new Set<string>();
  let stuck = new Set<string>();
  const stuckFindings = new Map<string, Finding>();
  let consensus: Consensus | undefined;

  const post = async (record: RoundRecord, kind: RoundRecord["comments"][number]["kind"], body: string): Promise<void> => {
    const tag = `round-${record.round}-${kind.replace(/ /g, "-")}`;
    await setup.backend.postComment(setup.pr, finishComment(tag, body, setup.secrets));
    record.comments.push({ kind, tag });
  };
  const fail = async (record: RoundRecord, reason: string, detail?: string): Promise<string> => {
    record.next = `stopped: ${reason}`;
    await post(record, "failure report", renderFailureReport(record.round, reason, detail));
    return `Stopped in round ${record.round}: ${reason}`;
  };

  const run = ctx.account ?? new Account(`pr-review loop PR #${setup.pr.number}`);
  /*
   * The budget stops the loop between steps, never inside one: a fix the budget cut short is not
   * committed or pushed (runFix commits only after its session answered), what earlier rounds
   * pushed stays, and the stop is reported on the PR like any other.
   */
  const budgetStop = async (record: RoundRecord, error: unknown, undone: string): Promise<RoundsResult> => {
    const message = error instanceof Error ? error.message : String(error);
    record.next = "stopped: the loop's budget was reached";
    await post(
      record,
      "failure report",
      renderFailureReport(
        record.round,
        "The loop's budget (--budget, --max-tokens or limits.run_usd / limits.run_tokens) was reached: no further model call was made.",
        `Left undone: ${undone}`,
      ),
    );
    return {
      rounds,
      consensus,
      outcome: `Stopped in round ${record.round}: ${message}`,
      stuck: [...stuckFindings.values()],
      budgetStop: { message, undone },
    };
  };
  // The cap's outcome names what the rounds cost: a PR that did not converge is a spend to look at.
  const capSpend = async (): Promise<string> => {
    await ctx.runtime.sessions.meter?.flush();
    return `; the ${MAX_ROUNDS} rounds ${run.spentLine()}`;
  };
  const laterRounds = (round: number): string => (round < MAX_ROUNDS ? `; rounds ${round + 1}-${MAX_ROUNDS} did not run` : "");

  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const record: RoundRecord = { round, next: "", comments: [] };
    rounds.push(record);
    const account = run.child(`round ${round}`);
    record.account = account;
    progress(`pr-review loop: round ${round}/${MAX_ROUNDS}, ${setup.reviewers.length} reviewer(s)`);
    let review;
    try {
      review = await withAccount(account, () => runReviewRound(ctx, round));
    } catch (error) {
      if (isBudgetStop(error))
        return budgetStop(record, error, `the review of round ${round} (nothing of it was reported or fixed)${laterRounds(round)}.`);
      if (isOttoError(error) && error.code === "session_aborted") throw error;
      const reason = isHardStop(error) ? `model check failed, the loop stops: ${inlineError(error)}` : inlineError(error);
      return { rounds, consensus, outcome: await fail(record, redact(reason, setup.secrets)), stuck: [...stuckFindings.values()] };
    }
    record.reviewers = review.reviewers;
    if (review.reviewers.every((r) => !r.ok)) {
      const detail = review.reviewers.map((r) => `- ${r.name} (${r.model}): ${r.error ?? "no answer"}`).join("\n");
      return {
        rounds,
        consensus,
        outcome: await fail(
          record,
          `all ${review.reviewers.length} reviewer(s) failed; there is no credible review, so nothing is fixed.`,
          detail,
        ),
        stuck: [...stuckFindings.values()],
      };
    }

    stuck = stuckIds(review.findings, reportedFixed, stuck);
    for (const f of review.findings) if (stuck.has(f.id) && !stuckFindings.has(f.id)) stuckFindings.set(f.id, f);
    const payload = fixPayload(setup.pr.number, round, review.findings, stuck);
    const counts = countByPriority([...review.findings, ...review.threads]);
    consensus = consensusOf(counts, review.reviewState);
    Object.assign(record, { consensus, counts });
    const decision = decideRound({
      round,
      maxRounds: MAX_ROUNDS,
      consensus,
      reviewState: review.reviewState,
      toFix: payload.issuesToFix.length,
      stuck: review.findings.filter((f) => stuck.has(f.id)).length,
      threads: review.threads,
      canPush: setup.canPush,
      ...(setup.pushBlocker ? { pushBlocker: setup.pushBlocker } : {}),
    });
    record.next = decision.next;
    await post(
      record,
      "review report",
      renderReviewReport({
        round,
        maxRounds: MAX_ROUNDS,
        consensus,
        reviewers: review.reviewers,
        reviewState: review.reviewState,
        findings: review.findings,
        threads: review.threads,
        stuck: review.findings.filter((f) => stuck.has(f.id)),
        next: decision.next,
      }),
    );
    if (decision.action === "approved")
      return { rounds, consensus, outcome: `Approved in round ${round}.`, stuck: [...stuckFindings.values()] };
    if (decision.action === "stop")
      return { rounds, consensus, outcome: `Stopped in round ${round}: ${decision.reason}`, stuck: [...stuckFindings.values()] };

    progress(`pr-review loop: round ${round}/${MAX_ROUNDS}, fixing ${payload.issuesToFix.length} finding(s)`);
    let fix;
    try {
      fix = await withAccount(account.child("fix"), () =>
        runFix(ctx, payload, {
          fixTimeoutMs: parseDuration(config.spec.task_timeout),
          verifyTimeoutMs: parseDuration(config.spec.verify_timeout),
        }),
      );
    } catch (error) {
      if (isBudgetStop(error)) {
        const left = setup.detached
          ? "what the fix agent changed went with otto's temporary worktree"
          : `what the fix agent changed is left uncommitted in ${setup.dir}`;
        return budgetStop(
          record,
          error,
          `the fixes of round ${round} (${payload.issuesToFix.map((f) => f.id).join(", ")}): nothing of them was committed or pushed, ${left}${laterRounds(round)}.`,
        );
      }
      if (isOttoError(error) && error.code === "session_aborted") throw error;
      return {
        rounds,
        consensus,
        outcome: await fail(record, redact(`the fix step failed: ${inlineError(error)}`, setup.secrets)),
        stuck: [...stuckFindings.values()],
      };
    }
    for (const f of fix.account.fixed) reportedFixed.add(f.findingId);
    record.fix = {
      fixed: fix.account.fixed.length,
      rejected: fix.account.rejected.length,
      ...(fix.push?.outcome === "pushed" ? { pushed: fix.push.sha } : {}),
    };
    const pushText = fix.push
      ? `${fix.push.outcome}: ${fix.push.detail}${fix.push.outcome === "pushed" ? ` (${fix.push.sha.slice(0, 7)})` : ""}`
      : "not pushed.";
    const stopNote = fix.failure
      ? `**Stopped:** ${fix.failure}`
      : decision.stopAfter
        ? `**Stopped:** ${decision.stopAfter}`
        : `**Next:** review round ${round + 1}.`;
    await post(record, "fix report", renderFixReport({ round, account: fix.account, checks: fix.checks, push: pushText, note: stopNote }));
    if (fix.failure) {
      record.next = `stopped after the fix: ${fix.failure}`;
      return { rounds, consensus, outcome: `Stopped in round ${round}: ${fix.failure}`, stuck: [...stuckFindings.values()] };
    }
    if (decision.stopAfter)
      return {
        rounds,
        consensus,
        outcome: `Stopped after round ${round}: ${round >= MAX_ROUNDS ? `${decision.stopAfter.replace(/\.$/, "")}${await capSpend()}.` : decision.stopAfter}`,
        stuck: [...stuckFindings.values()],
      };
  }
  return {
    rounds,
    consensus,
    outcome: `Stopped: max rounds reached (${MAX_ROUNDS})${await capSpend()}.`,
    stuck: [...stuckFindings.values()],
  };
}
