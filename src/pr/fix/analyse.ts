import fs from "node:fs/promises";
import { assertOttoPathSafe, redact } from "../../core/index.ts";
import { parseDuration } from "../../config/index.ts";
import { runGit, snapshotGitControl } from "../../workspace/index.ts";
import type { PrDocument } from "../store/document.ts";
import { withAccount } from "../../cost/index.ts";
import { infrastructure } from "./endings.ts";
import type { Flow, FixModels, FixOutcome } from "./flow.ts";
import { collectLogs } from "./logs.ts";
import { analyseFailure, type SessionContext } from "./sessions.ts";
import { isInfrastructure, parseVerdict } from "./verdict.ts";
import { fixAttempts, type FixTree } from "./attempts.ts";
import { screenInTree, type Screened } from "./screen-failure.ts";
import { prWorkRules } from "../rules.ts";

/*
 * Step 3 of the fix flow (order: run-fix.ts), phase 1: before any session, the tree's git
 * configuration and HEAD are noted; the failed checks' logs are downloaded; a flake or an
 * inherited failure ends the run before any model call (screen-failure.ts); otherwise one read-only
 * analysis session sums up the failure. An infrastructure verdict ends in a re-run (endings.ts);
 * otherwise phase 2 (attempts.ts) fixes the code.
 */

export async function fixInTree(flow: Flow, claimed: PrDocument, workdir: FixTree, models: FixModels): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  // Before any session has the tree: the push compares against it (src/workspace/git-guard.ts),
  // and what the sessions change is read against this commit (src/workspace/screen-changes.ts).
  const gitControl = await snapshotGitControl(workdir.dir, { env: deps.env });
  const since = (await runGit(["rev-parse", "HEAD"], { cwd: workdir.dir, env: deps.env })).stdout.trim();

  flow.progress(`otto pr fix: downloading the logs of ${flow.failedChecks.join(", ")}`);
  const logs = await collectLogs({
    backend: input.backend,
    pr,
    key: flow.key,
    checks: input.pipeline.checks,
    dir: workdir.dir,
    storeDir: deps.store.dir,
    secrets: deps.secrets,
    env: deps.env,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const session: SessionContext = {
    sessions: deps.sessions,
    env: deps.env,
    dir: workdir.dir,
    parentID: deps.parentID,
    signal: deps.signal,
    timeoutMs: parseDuration(deps.config.spec.task_timeout),
    // The team rules in scope of the PR's changes, for every session of the flow (docs/rules.md).
    system: (
      await prWorkRules({
        dir: workdir.dir,
        remote: workdir.remote,
        targetBranch: pr.targetBranch,
        env: deps.env,
        key: pr.repo,
        purpose: "write",
      })
    ).text,
  };
  let screened: Screened = {};
  try {
    // Before any model call: a flake or a failure the default branch has too ends the run here.
    screened = await screenInTree(flow, claimed, workdir.dir, logs.texts, logs.commands);
    if (screened.outcome) return screened.outcome;
    flow.progress(`otto pr fix: phase 1, analysing ${logs.files.length} log(s)`);
    const spend = flow.account.child("analysis");
    try {
      flow.summary = redact(
        await withAccount(spend, () =>
          analyseFailure(session, models.analysis, {
            pr,
            checks: input.pipeline.checks,
            files: logs.files,
            missing: logs.missing,
            ...(screened.findings ? { screening: screened.findings } : {}),
          }),
        ),
        deps.secrets,
      );
    } finally {
      flow.parts.push({ name: "analysis", usage: spend.usage });
    }
  } finally {
    // Checked again: the analysis session could have swapped a link in meanwhile.
    if (
      await assertOttoPathSafe(logs.worktreeDir).then(
        () => true,
        () => false,
      )
    )
      await fs.rm(logs.worktreeDir, { recursive: true, force: true });
  }
  flow.verdict = parseVerdict(flow.summary);
  if (isInfrastructure(flow.verdict)) return infrastructure(flow, claimed);
  return fixAttempts(flow, claimed, workdir, models, {
    session,
    gitControl,
    since,
    summary: flow.summary,
    ...(screened.baseline ? { checks: screened.baseline } : {}),
  });
}
