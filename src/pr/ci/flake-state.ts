import { z } from "zod";
import { addFlake, FlakeVerdict, type FlakeLedger } from "../store/flakes.ts";
import type { PipelineStatus, PrInfo } from "../types.ts";
import type { CiState } from "./state.ts";

/*
 * The flake ledger in CI mode (docs/ci.md): a CI job has no ledger of its own between jobs, so
 * otto's state comment carries the PR's flake verdicts. Before the fix flow the job's throw-away
 * ledger is seeded with them (a failure judged flaky before on this PR is recognised without a
 * re-run); after it, the PR's occurrences go back into the state. A re-run to tell a flake that a
 * later job sees green on the same head is recorded there too. Pure.
 */

/** One flake verdict of this PR, as the state comment keeps it. */
export const CiFlake = z.object({
  /** The failure's fingerprint, or `check:<name>` when its log named nothing (never matched as known). */
  fingerprint: z.string(),
  check: z.string(),
  verdict: FlakeVerdict,
  head: z.string(),
  at: z.string(),
  run_url: z.string().optional(),
});
export type CiFlake = z.infer<typeof CiFlake>;

/** Verdicts the state keeps: the newest (a comment stays small). */
export const MAX_CI_FLAKES = 30;

const same = (a: Pick<CiFlake, "fingerprint" | "head" | "check">, b: Pick<CiFlake, "fingerprint" | "head" | "check">): boolean =>
  a.fingerprint === b.fingerprint && a.head === b.head && a.check === b.check;

/** The job's ledger with the state's verdicts of this PR. */
export function seedLedger(ledger: FlakeLedger, flakes: readonly CiFlake[], key: string, pr: Pick<PrInfo, "number" | "url">): FlakeLedger {
  let next = ledger;
  for (const f of flakes)
    next = addFlake(next, f.fingerprint, [], {
      pr: key,
      number: pr.number,
      url: pr.url,
      ...(f.run_url ? { run_url: f.run_url } : {}),
      head: f.head,
      check: f.check,
      at: f.at,
      verdict: f.verdict,
    });
  return next;
}

/** The PR's verdicts after the flow: those the state had, plus what the job's ledger holds of this PR. */
export function flakesOf(ledger: FlakeLedger, key: string, before: readonly CiFlake[]): CiFlake[] {
  const flakes = [...before];
  for (const [fingerprint, entry] of Object.entries(ledger.flakes))
    for (const o of entry.occurrences) {
      if (o.pr !== key) continue;
      const flake: CiFlake = {
        fingerprint,
        check: o.check,
        verdict: o.verdict,
        head: o.head,
        at: o.at,
        ...(o.run_url ? { run_url: o.run_url } : {}),
      };
      if (!flakes.some((f) => same(f, flake))) flakes.push(flake);
    }
  return flakes.sort((a, b) => a.at.localeCompare(b.at)).slice(-MAX_CI_FLAKES);
}

/**
 * A re-run to tell a flake (pr.flakes.rerun) that passed: the probed head is the PR's head and its
 * pipeline is green. The state with each probed check recorded as a flake (verdict `rerun`) and the
 * probe cleared; undefined when there is nothing to settle.
 */
export function settleProbe(state: CiState, pipeline: PipelineStatus, now: Date): CiState | undefined {
  const probe = state.flake_probe;
  if (!probe || pipeline.state !== "success" || pipeline.headSha !== probe.sha) return undefined;
  const at = now.toISOString();
  const flakes = [...state.flakes];
  for (const c of probe.checks) {
    const flake: CiFlake = {
      fingerprint: c.fingerprint ?? `check:${c.name}`,
      check: c.name,
      verdict: "rerun",
      head: probe.sha,
      at,
      ...(c.url ? { run_url: c.url } : {}),
    };
    if (!flakes.some((f) => same(f, flake))) flakes.push(flake);
  }
  return { ...state, flake_probe: undefined, flakes: flakes.slice(-MAX_CI_FLAKES), updated: at };
}
