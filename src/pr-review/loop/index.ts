import { redact } from "../../core/index.ts";
import type { Runtime } from "../../runtime.ts";
import { findRepoRoot, parseDuration } from "../../config/index.ts";
import { Account, runBudget, withAccount, type BudgetFlags } from "../../cost/index.ts";
import { documentKey } from "../../pr/index.ts";
import { sendNotification } from "../../notify/index.ts";
import { snapshotGitControl, withWorkLock, workTreeBusy } from "../../workspace/index.ts";
import { preflight, type LoopSetup } from "./preflight.ts";
import type { RunContext } from "./run-review.ts";
import { runRounds } from "./run-rounds.ts";
import { renderSummary, type RoundRecord } from "./summary.ts";

export { MAX_ROUNDS } from "./run-rounds.ts";

export interface ReviewLoopInput {
  runtime: Runtime;
  /** Where the command runs (the tool's directory). */
  directory: string;
  /** The PR: a URL or a number. */
  target: string;
  provider?: string;
  /** The invoking session, so child sessions show under it. */
  sessionID?: string;
  signal?: AbortSignal;
  progress(message: string): void;
  /** --budget <usd> / --max-tokens <n>; limits.run_usd / limits.run_tokens when unset. */
  budget?: BudgetFlags;
}

/** The URL of each posted report, found again by its tag; the PR's URL stands in when it is not found. */
async function findLinks(setup: LoopSetup, rounds: readonly RoundRecord[]): Promise<Map<string, string>> {
  const links = new Map<string, string>();
  if (!rounds.some((r) => r.comments.length > 0)) return links;
  try {
    const comments = await setup.backend.getComments(setup.pr);
    for (const r of rounds) {
      for (const c of r.comments) {
        const url = comments.find((x) => x.body.includes(`<!-- otto-loop:${c.tag} -->`))?.url;
        if (url) links.set(c.tag, url);
      }
    }
  } catch {
    // Links are a convenience: the reports are on the PR whatever happens here.
  }
  return links;
}

/** /pr-review --loop: the multi-model review-and-fix loop (docs/pr-review-loop.md). */
export async function runReviewLoop(input: ReviewLoopInput): Promise<string> {
  // A mistyped budget is refused before anything runs.
  runBudget(input.budget ?? {}, {});
  input.progress("pr-review loop: preflight (config, token, PR, local branch, push access)");
  const setup = await preflight(input);
  const { config } = setup;
  const key = documentKey(setup.pr);
  const fix = `Run /pr-review ${setup.pr.url} --loop again, with a higher --budget or --max-tokens: what was pushed stays, and the next run reviews the branch as it is then.`;
  const budget = runBudget(input.budget ?? {}, { usd: config.limits.run_usd, tokens: config.limits.run_tokens }, fix);
  const repoRoot = (await findRepoRoot(input.directory)) ?? input.directory;
  const account = new Account(`pr-review loop ${key}`, {
    labels: { repo: repoRoot, pr: `${setup.pr.repo}#${setup.pr.number}`, review: key },
    ...(budget ? { budget } : {}),
  });
  const ctx: RunContext = {
    runtime: input.runtime,
    setup,
    account,
    rulesKey: repoRoot,
    ...(input.sessionID ? { sessionID: input.sessionID } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    reviewTimeoutMs: parseDuration(config.spec.stage_timeout),
  };
  // The fix and comment flows (the watcher, another OpenCode) edit and push in this tree too: one job at a time.
  let held;
  try {
    held = await withWorkLock(
      setup.checkoutDir,
      `the review loop of PR #${setup.pr.number} (/pr-review --loop)`,
      async () =>
        withAccount(account, async () =>
          runRounds({ ...ctx, gitControl: await snapshotGitControl(setup.dir, { env: input.runtime.env }) }, (message) =>
            input.progress(message),
          ),
        ),
      { env: input.runtime.env },
    );
  } finally {
    const problem = await setup.release();
    if (problem) input.runtime.log.log("warn", problem);
  }
  if (held.busy) throw workTreeBusy(setup.checkoutDir, held.holder, "run /pr-review --loop again");
  const result = held.value;
  await input.runtime.sessions.meter?.flush();
  const links = await findLinks(setup, result.rounds);
  const budgetStop = result.budgetStop ? { ...result.budgetStop, fix } : undefined;
  const summary = redact(
    renderSummary({
      pr: setup.pr,
      ...result,
      ...(budgetStop ? { budgetStop } : {}),
      notes: setup.notes,
      links,
      spend: { usage: account.usage, line: account.spentLine() },
    }),
    setup.secrets,
  );
  if (budgetStop) {
    // One notification per stop, once the loop has ended (the account's onStop fires mid-call).
    await sendNotification(input.runtime, input.directory, {
      kind: "human_needed",
      title: `PR #${setup.pr.number}: the review loop stopped at its budget`,
      text: redact(`${budgetStop.message}\nLeft undone: ${budgetStop.undone}\n${fix}`, setup.secrets),
      url: setup.pr.url,
      facts: { repository: setup.pr.repo, spent: account.spentLine() },
    });
  }
  return summary;
}
