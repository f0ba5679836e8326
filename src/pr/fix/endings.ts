import { formatError, redact } from "../../core/index.ts";
import { sanitizeForPost } from "../sanitize.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import { appendHistory, giveUpComment, planInfrastructure, renderEntry } from "./decide.ts";
import { short, summaryLines, type Flow, type FixOutcome } from "./flow.ts";

/*
 * How a fix run ends when it does not push: a re-run (infrastructure), a refusal (fork), or
 * giving up (max_fix_attempts), each recorded and, where a person must act, notified once.
 */

export async function infrastructure(flow: Flow, doc: PrDocument, why?: string): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const plan = planInfrastructure(doc.data, pr.headSha);
  if (plan.kind === "rerun") {
    flow.progress("otto pr fix: infrastructure failure, re-running the failed jobs");
    const rerun = await input.backend.runWorkflow(pr, "rerun_failed");
    const rerunShas = [...(doc.data.rerun_shas ?? []), pr.headSha].slice(-20);
    if (rerun.done) {
      await flow.record({
        data: { status: "watching", fix_started: undefined, rerun_shas: rerunShas },
        entry: flow.entry("Re-run", `infrastructure failure${why ? ` (${why})` : ""}: ${rerun.message} Not counted as a fix attempt.`, {
          summary: flow.summary,
        }),
        log: [`fixing → watching: infrastructure failure, re-run requested (${rerun.message})`],
      });
      return flow.outcome(
        "rerun",
        `Infrastructure failure on \`${short(pr.headSha)}\`: ${rerun.message} Not counted as a fix attempt.`,
        ...summaryLines(flow),
      );
    }
    await flow.record({
      data: { status: "failed", fix_started: undefined, rerun_shas: rerunShas, human_sha: pr.headSha },
      entry: flow.entry("Re-run", `infrastructure failure; the provider could not re-run it: ${rerun.message}`, { summary: flow.summary }),
      log: [`fixing → failed: infrastructure failure, no re-run possible (${rerun.message})`],
    });
    await flow.notifyHuman(
      `PR #${pr.number} needs a pipeline re-run: ${pr.title}`,
      `otto classified the failure as infrastructure, but ${rerun.message}`,
    );
    return flow.outcome(
      "human",
      `Infrastructure failure on \`${short(pr.headSha)}\`; the provider could not re-run it (${rerun.message}). Re-queue the pipeline from the PR page.`,
    );
  }
  await flow.record({
    data: { status: "failed", fix_started: undefined, human_sha: pr.headSha },
    entry: flow.entry("Re-run", "infrastructure failure again after a re-run of this commit: left to a person", { summary: flow.summary }),
    log: ["fixing → failed: infrastructure failure persists after a re-run; a person is needed"],
  });
  if (plan.notify)
    await flow.notifyHuman(
      `PR #${pr.number}: the pipeline fails on infrastructure again: ${pr.title}`,
      `A re-run of \`${short(pr.headSha)}\` did not help. ${flow.summary ? flow.summary.slice(0, 500) : ""}`,
    );
  return flow.outcome(
    "human",
    `Infrastructure failure on \`${short(pr.headSha)}\` again after a re-run; a person needs to look (notified).`,
  );
}

export async function refuseFork(flow: Flow, notify: boolean): Promise<FixOutcome> {
  const { pr } = flow.input;
  const where = pr.headRepo ? `the fork ${pr.headRepo}` : "a fork (or a deleted repository)";
  const text = `The head branch '${pr.sourceBranch}' of PR #${pr.number} is in ${where}; otto pushes only to branches of ${pr.repo}, so it does not fix this PR.`;
  if (notify) {
    await flow.record({
      data: { human_sha: pr.headSha },
      entry: flow.entry("Refused", text),
      log: [`fix refused: head branch in ${where}`],
    });
    await flow.notifyHuman(`otto cannot fix PR #${pr.number}: ${pr.title}`, text);
  }
  return flow.outcome("refused", text);
}

/** Status failed, one comment, one notification: the first caller that sets gave_up posts. */
export async function giveUp(flow: Flow, last?: string): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  let mine = false;
  let attempts = input.doc.data.fix_attempts;
  let summary = flow.summary;
  await deps.store.update(flow.key, (current) => {
    if (current.data.gave_up) return undefined;
    mine = true;
    attempts = current.data.fix_attempts;
    summary ??= lastSummary(current);
    const entry = flow.entry(
      "Gave up",
      `${attempts} attempt(s) used (max_fix_attempts ${current.data.max_fix_attempts}); giving-up comment posted`,
    );
    return {
      ...current,
      data: { ...current.data, status: "failed", gave_up: flow.time(), fix_started: undefined },
      sections: appendHistory(current.sections, redact(renderEntry(entry), deps.secrets)),
      log: [...current.log, logLine(flow.time(), `→ failed: gave up after ${attempts} fix attempt(s)`)],
    };
  });
  if (!mine) return flow.outcome("gave_up", `otto already gave up on ${flow.key}.`);
  try {
    await input.backend.postComment(pr, sanitizeForPost(giveUpComment(attempts, summary), deps.secrets));
  } catch (error) {
    const message = redact(formatError(error), deps.secrets);
    deps.log("warn", `giving-up comment on ${flow.key} failed`, { error: message });
    await flow.record({ log: [`giving-up comment could not be posted: ${message}`] }).catch(() => undefined);
  }
  const report = await deps.notify({
    kind: "pr_gave_up",
    title: `otto gave up on PR #${pr.number}: ${pr.title}`,
    text: `The pipeline still fails after ${attempts} fix attempt(s) on ${pr.sourceBranch}.`,
    url: pr.url,
    facts: { Repository: pr.repo, Branch: `${pr.sourceBranch} → ${pr.targetBranch}`, Attempts: String(attempts) },
  });
  for (const failure of report.failed) deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
  return flow.outcome(
    "gave_up",
    ...(last ? [last] : []),
    `Gave up after ${attempts} attempt(s): status failed, one comment posted on the PR, notification sent.`,
  );
}

/** The newest failure summary quoted in Fix History (for a giving-up that starts a run). */
function lastSummary(doc: PrDocument): string | undefined {
  const body = doc.sections.find((s) => s.title === "Fix History")?.body ?? "";
  const blocks = body.split(/^### /m).reverse();
  for (const block of blocks) {
    const quote = block
      .split("\n")
      .filter((l) => l.startsWith("  > "))
      .map((l) => l.slice(4));
    if (quote.length > 0) return quote.join("\n");
  }
  return undefined;
}
