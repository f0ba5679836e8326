import { OttoError, formatError, redact } from "../../core/index.ts";
import { repoUrlOfPr } from "../../repo/index.ts";
import type { PrAccount } from "../context/daily-caps.ts";
import { logLine } from "../store/document.ts";
import { fixClaimed } from "./checkout.ts";
import { planStart } from "./decide.ts";
import { giveUp, refuseFork } from "./endings.ts";
import { short, summaryLines, type Flow, type FixDeps, type FixOutcome } from "./flow.ts";
import { stillInherited } from "./inherited-hold.ts";
import { inRepoQueue } from "./repo-queue.ts";

/*
 * The fix's start (step 1 of run-fix.ts, inside the run's account): whether it starts at all (a fix
 * running, given up, a fork, a fix pending, main still red), claiming the PR, and how a run that
 * does not finish ends: a budget stop, a cancel, an error.
 */

/**
 * The budget stopped the fix (the watcher's daily cap, or /otto-pr fix --budget): no attempt is
 * counted for the unfinished step and the PR is left to be fixed again: by the watcher the next
 * UTC day (or after the cap is raised; a person is told once), by hand with a larger budget.
 */
async function budgetStop(flow: Flow, opened: PrAccount): Promise<FixOutcome> {
  const { input, account } = flow;
  const spent = account.spentLine();
  const watcher = input.trigger === "watcher";
  await flow.record({
    data: { status: watcher ? "failed" : "watching", fix_started: undefined },
    entry: flow.entry("Budget", `the fix stopped at its budget (${spent}); no attempt counted for the unfinished step`, {
      summary: flow.summary,
    }),
    log: [`fixing → ${watcher ? "failed" : "watching"}: budget reached (${spent}); no attempt counted`],
  });
  const held = await opened.holdAtStop();
  if (held !== undefined) return flow.outcome("held", `Budget reached: ${spent}.`, held, ...summaryLines(flow));
  return flow.outcome(
    "stopped",
    `Budget reached: ${spent}. No attempt was counted for the unfinished step.`,
    `${account.stopped?.fix ?? "Run it again with a larger --budget."} (/otto-pr fix ${input.doc.data.id} --budget <usd>)`,
    ...summaryLines(flow),
  );
}

export async function fixRun(flow: Flow, outer: FixDeps, start: ReturnType<typeof planStart>, opened: PrAccount): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  if (start.kind === "busy") return flow.outcome("busy", `A fix of ${flow.key} is already running (since ${start.since}).`);
  if (start.kind === "gave_up")
    return flow.outcome(
      "gave_up",
      `otto gave up on ${flow.key} at ${start.since} (${input.doc.data.fix_attempts} attempts); raise max_fix_attempts in its document to try again.`,
    );
  if (start.kind === "fork") return refuseFork(flow, start.notify);
  if (start.kind === "give_up") return giveUp(flow);
  if (start.kind === "fix_pending") {
    return flow.outcome(
      "busy",
      `otto already pushed a fix (${short(start.sha)}) on top of ${short(pr.headSha)}; waiting for the forge to show it as the PR's head.`,
      `If the PR's head does not move to ${short(start.sha)} within minutes, look at the branch on the remote (git ls-remote).`,
    );
  }

  if (await stillInherited(deps, input)) {
    const names = input.doc.data.inherited?.checks.map((c) => c.name).join(", ") ?? "";
    return flow.outcome(
      "inherited",
      `${pr.targetBranch} still fails ${names} the same way; the PR is fixed normally once ${pr.targetBranch} is green.`,
    );
  }

  let claimed = false;
  const doc = await deps.store.update(flow.key, (current) => {
    if (planStart(current.data, pr, deps.now()).kind !== "fix") return undefined;
    claimed = true;
    const log = [
      `${current.data.status} → fixing (${input.trigger}): ${flow.failedChecks.join(", ") || "pipeline failed"} on ${short(pr.headSha)}`,
    ];
    // Someone else pushed since otto's last fix: noticed, nothing reset.
    if (current.data.fix_sha && current.data.fix_sha !== pr.headSha)
      log.push(
        `head ${short(pr.headSha)} is not otto's last fix ${short(current.data.fix_sha)} (pushed by someone else); fix attempts not reset`,
      );
    return {
      ...current,
      data: { ...current.data, status: "fixing", fix_started: flow.time() },
      log: [...current.log, ...log.map((l) => logLine(flow.time(), l))],
    };
  });
  if (!doc) throw new OttoError("pr_not_tracked", `PR ${flow.key} is no longer tracked.`, "Add it again with /otto-pr add <url>.");
  if (!claimed) return flow.outcome("busy", `A fix of ${flow.key} is already running.`);
  try {
    return await inRepoQueue(deps.sessions, repoUrlOfPr(pr.url), () => fixClaimed(flow, doc));
  } catch (error) {
    if (flow.account.stopped && !outer.signal?.aborted) return await budgetStop(flow, opened);
    if (outer.signal?.aborted) {
      // Cancelled (the watcher stopped, the command was aborted): not the PR's failure and nobody to
      // notify. Back to watching, so the next poll sees the failure and hands it over again.
      await flow
        .record({
          data: { status: "watching", fix_started: undefined },
          entry: flow.entry("Cancelled", "the fix was cancelled before it finished; no attempt counted for the unfinished step", {
            summary: flow.summary,
          }),
          log: ["fixing → watching: fix cancelled; the next poll hands the failure back"],
        })
        .catch(() => undefined);
      throw error;
    }
    const message = redact(formatError(error), deps.secrets);
    await flow
      .record({
        data: { status: "failed", fix_started: undefined },
        entry: flow.entry("Error", `the fix stopped: ${message}`, { summary: flow.summary }),
        log: [`fixing → failed: fix stopped: ${message}`],
      })
      .catch(() => undefined);
    if (input.trigger === "watcher" && input.doc.data.human_sha !== pr.headSha) {
      await flow.record({ data: { human_sha: pr.headSha } }).catch(() => undefined);
      await flow.notifyHuman(`otto could not fix PR #${pr.number}: ${pr.title}`, message);
    }
    throw error;
  }
}
