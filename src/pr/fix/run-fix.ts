import { formatError } from "../../core/index.ts";
import { planStart } from "./decide.ts";
import { Flow, type FixDeps, type FixInput, type FixOutcome } from "./flow.ts";
import { totalTokens, withAccount } from "../../cost/index.ts";
import { recordFixCost } from "./flake-record.ts";
import { openPrAccount } from "../context/daily-caps.ts";
import { fixRun } from "./claim.ts";
import { assertSandbox } from "../../sandbox/index.ts";

/*
 * The fix flow (docs/pr-fix.md): a red pipeline on a tracked PR → logs → phase 1 (failure
 * summary, code or infrastructure) → re-run, or phase 2 attempts until one is pushed or
 * max_fix_attempts is reached → one giving-up comment. Every step is recorded in the PR document.
 *
 * One file per step, each calling only the steps after it:
 * 1. run-fix.ts   runFix: the sandbox, the daily caps and the account (one call, context/daily-caps.ts), the fix's cost
 *    claim.ts     fixRun: whether to start, claim the PR; a budget stop, a cancel or an error ends the run here
 * 2. checkout.ts  fixClaimed, fixInCheckout: the PR's worktree, the work lock, the tree (sync, config hold, dirty deferral)
 * 3. analyse.ts   fixInTree: phase 1, the logs; screen-failure.ts ends a flake or an inherited failure before any model call;
 *                 then the analysis session; an infrastructure verdict ends in endings.ts
 * 4. attempts.ts  fixAttempts: phase 2, the baseline of the checks, then the attempts until one pushes, stops or gives up
 * 5. attempt.ts   runAttempt: one attempt (fix session, screen, checks, review, push, set aside)
 * Beside them: flow.ts (the run and its records), endings.ts (re-run, fork, giving up), decide.ts (pure rules).
 */

export type { FixDeps, FixInput, FixModels, FixOutcome, FixResult } from "./flow.ts";

export async function runFix(deps: FixDeps, input: FixInput): Promise<FixOutcome> {
  const { pr, doc } = input;
  // No sandbox here: under "required" no session or check starts, nor under "auto" for the watcher and CI mode.
  assertSandbox(
    deps.config.sandbox,
    deps.env,
    undefined,
    input.trigger === "watcher" ? `The fix flow of ${doc.key} (unattended)` : undefined,
  );
  const start = planStart(doc.data, pr, deps.now());
  // The watcher's daily caps, before anything that costs: at a cap the PR waits for the next day (or a raised cap).
  const opened = await openPrAccount(deps, doc, {
    name: `pr fix ${doc.key}`,
    what: "fix",
    capped: start.kind === "fix" && input.trigger === "watcher",
    budget: deps.budget,
  });
  if ("held" in opened) return { key: doc.key, result: "held", lines: [opened.held] };
  const { account } = opened;
  // A budget stop aborts whatever runs: the sessions (through the runner), the checks and the loop.
  const signal = deps.signal ? AbortSignal.any([deps.signal, account.signal]) : account.signal;
  const flow = new Flow({ ...deps, signal }, input, account);
  const outcome = await withAccount(account, () => fixRun(flow, deps, start, opened));
  await flow.recordSpend().catch(() => undefined);
  // What a fix costs here: the median a later flake or inherited failure saves (src/pr/store/flakes.ts).
  if (flow.parts.some((p) => p.name === "analysis") && account.usage.requests > 0)
    await recordFixCost({ storeDir: deps.store.dir, now: () => deps.now() }, doc.data, account.usage.usd, totalTokens(account.usage)).catch(
      (error: unknown) => deps.log("warn", `could not note the fix's cost in the flake ledger`, { error: formatError(error) }),
    );
  return { ...outcome, usage: account.usage, parts: flow.parts };
}
