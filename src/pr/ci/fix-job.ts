import { formatError } from "../../core/index.ts";
import { addUsage, formatUsage, ZERO_USAGE } from "../../cost/index.ts";
import { commitAndPush } from "../../workspace/index.ts";
import { prLabel, readToday } from "../context/spend.ts";
import { configuredModels, renderOutcome } from "../fix/entry.ts";
import { runFix } from "../fix/run-fix.ts";
import { pipelineSummary } from "../pipeline.ts";
import { flakeLedgerFile, readFlakeLedger, updateFlakeLedger } from "../store/flakes.ts";
import type { PrInfo } from "../types.ts";
import { checkoutPrBranch } from "./checkout.ts";
import { deadClaim, expectedUsd, honourClaims, putClaim, type CiClaim } from "./claims.ts";
import { flakesOf, seedLedger, settleProbe } from "./flake-state.ts";
import { none, markSeen, withDocument, type FlowResult, type Job } from "./job.ts";
import { carrySpend } from "./ledger-carry.ts";
import type { StateStore } from "./state-comment.ts";
import { MAX_HANDLED_HEADS, stateOf, type CiState } from "./state.ts";

/*
 * The fix flow of a CI job (docs/ci.md): the PR's red head, claimed in the state comment with the
 * attempt and its expected spend before any model call (claims.ts), worked on by the watcher's
 * fix flow, the claim raised to the real spend before the push and released at the end.
 */

/**
 * A re-run to tell a flake that an earlier job started on this head (pr.flakes.rerun): green now,
 * so each probed check was a flake, recorded in the state. The state to go on from.
 */
export async function settleFlakeProbe(job: Job, pr: PrInfo, store: StateStore): Promise<CiState> {
  const state = store.found.state;
  if (state.flake_probe?.sha !== pr.headSha) return state;
  const status = await job.ctx.registry.get(pr.provider).getPipelineStatus(pr);
  const settled = settleProbe(state, status, job.now());
  if (!settled) return state;
  job.say(
    `otto ci: ${state.flake_probe.checks.map((c) => c.name).join(", ")} passed when otto re-ran the failed jobs of \`${pr.headSha.slice(0, 7)}\`: recorded as flaky in otto's state comment`,
  );
  return store.save(state, settled);
}

/** What this job spent on the PR today by its runner's ledger, the carried-over entry left out. */
async function spentHere(job: Job, label: string): Promise<number> {
  const entries = await readToday(job.runtime.env, job.now());
  return entries.filter((e) => e.labels.pr === label && e.message !== "carried-over").reduce((sum, e) => addUsage(sum, e.usage), ZERO_USAGE)
    .usd;
}

export async function fixFlow(job: Job, pr: PrInfo, store: StateStore, handled: string[]): Promise<FlowResult> {
  const name = `${pr.repo}#${pr.number}`;
  const short = pr.headSha.slice(0, 7);
  const read = store.found.state;
  const before = markSeen(await settleFlakeProbe(job, pr, store), handled);
  // A head otto re-ran to tell a flake is judged again when it fails again (the analysis is told so).
  const probing = before.flake_probe?.sha === pr.headSha;
  const dead = deadClaim(before.claims, pr.headSha, job.id, job.now());
  if (before.handled_heads.includes(pr.headSha) && !probing && !dead) {
    if (handled.length > 0) await store.save(read, before);
    return none(`otto already worked on the failure of \`${short}\` on ${name} (its state comment says so)`);
  }
  if (dead) job.say(`otto ci: the job ${dead.job} claimed \`${short}\` at ${dead.at} and never finished; its attempt is counted`);
  if (before.gave_up) return none(`otto gave up on ${name} at ${before.gave_up} after ${before.fix_attempts} attempt(s)`);
  const backend = job.ctx.registry.get(pr.provider);
  const pipeline = await backend.getPipelineStatus(pr);
  if (pipeline.state !== "failure") {
    if (handled.length > 0) await store.save(read, before);
    return none(`the pipeline of ${name} is ${pipeline.state} (${pipelineSummary(pipeline.checks)}) on \`${short}\``);
  }
  const { config } = job.ctx.loaded;
  // Claims of jobs that never finished count as used: their attempt and expected spend.
  const counted = honourClaims(before, job.id, job.now());
  if (counted.honoured.length > 0)
    job.say(`otto ci: counted the claim(s) of ${counted.honoured.join(", ")}, which never finished, against the PR's limits`);
  const claim: CiClaim = {
    job: job.id,
    head: pr.headSha,
    at: job.now().toISOString(),
    attempts: 1,
    usd: expectedUsd(counted.state.spend, config.limits.pr_usd_per_day, config.pr.max_fix_attempts),
    counted: false,
    released: false,
  };
  job.say(
    `otto ci: the pipeline failed (${pipelineSummary(pipeline.checks)}); claiming \`${short}\` (one attempt, $${claim.usd.toFixed(2)} expected) in otto's state comment`,
  );
  // Claimed before any work: a second job on the same head reads it and does nothing, and a job
  // killed from here on leaves its attempt and expected spend for the next one to count.
  const claimed = await store.save(read, {
    ...counted.state,
    handled_heads: [...before.handled_heads.filter((h) => h !== pr.headSha), pr.headSha].slice(-MAX_HANDLED_HEADS),
    claims: putClaim(counted.state.claims, claim),
    updated: job.now().toISOString(),
  });
  job.say(`otto ci: ${await checkoutPrBranch({ dir: job.input.directory, branch: pr.sourceBranch, env: job.runtime.env })}`);
  const label = prLabel({ repo: pr.repo, id: String(pr.number) });
  const carried = await carrySpend(job.runtime.env, label, counted.state.spend, job.now());
  if (carried.usd > 0)
    job.say(
      `otto ci: ${label} spent ${formatUsage(carried)} earlier today (carried from otto's state comment into this runner's ledger for limits.pr_usd_per_day)`,
    );
  // The document starts from the counts with the honoured claims in, never with this job's own.
  const working: CiState = { ...claimed, fix_attempts: Math.max(claimed.fix_attempts, counted.state.fix_attempts) };
  return withDocument(job, pr, working, async (doc, readDoc, docs) => {
    const failed = { ...doc, data: { ...doc.data, status: "failed" as const, pipeline: pipeline.state, checks: pipeline.checks } };
    await docs.update(doc.key, () => failed);
    // The job's flake ledger (in the throw-away store) starts from the PR's verdicts in the state.
    const ledger = flakeLedgerFile(docs.dir, pr.provider, pr.repo);
    if (claimed.flakes.length > 0)
      await updateFlakeLedger(ledger, (l) => seedLedger(l, claimed.flakes, doc.key, pr), { provider: pr.provider, repo: pr.repo });
    // Before a push (which starts CI again, and on Azure cancels this build): the claim holds the
    // attempts this job has made and what it has spent so far.
    let lastClaim = claimed;
    const push: typeof commitAndPush = async (...args) => {
      const now = await readDoc();
      const attempts = Math.max(1, now.data.fix_attempts - working.fix_attempts + 1);
      const usd = Math.max(claim.usd, await spentHere(job, label));
      const raised = { ...claim, attempts, usd, at: claim.at };
      lastClaim = await store.save(lastClaim, { ...lastClaim, claims: putClaim(lastClaim.claims, raised) });
      return commitAndPush(...args);
    };
    let result: FlowResult;
    try {
      const outcome = await runFix(
        {
          store: docs,
          config,
          secrets: job.ctx.loaded.secrets,
          notify: job.ctx.notify,
          sessions: job.runtime.sessions,
          env: job.runtime.env,
          cwd: job.input.directory,
          now: job.now,
          log: (level, message, extra) => job.runtime.log.log(level, message, extra),
          models: async () => configuredModels(config.models),
          progress: (m) => job.input.progress(m),
          parentID: job.input.sessionID,
          push,
          ...(job.input.signal ? { signal: job.input.signal } : {}),
        },
        { doc: failed, pr, pipeline, backend, trigger: "watcher" },
      );
      result = {
        outcome: "done",
        body: renderOutcome(outcome).replace(/^## otto-pr fix: /, "### fix: "),
        usage: outcome.usage ?? ZERO_USAGE,
      };
    } finally {
      // Whatever happened is otto's state now, an error included: the next job starts from it, and
      // this job's claim gives way to its real counts.
      const flakes = await readFlakeLedger(ledger)
        .then((l) => flakesOf(l, doc.key, claimed.flakes))
        .catch(() => claimed.flakes);
      await store
        .save(lastClaim, stateOf(await readDoc(), lastClaim, job.now(), pr.headSha, flakes), [job.id])
        .catch((error: unknown) => job.say(`otto ci: could not write otto's state comment: ${formatError(error)}`));
    }
    return result;
  });
}
