import { z } from "zod";
import { ZERO_USAGE } from "../../cost/index.ts";
import { utcDay } from "../context/daily-caps.ts";
import { addSpend } from "../context/spend.ts";
import type { PrSpend } from "../store/document.ts";

/*
 * Claims (docs/ci.md#claims): a fix job writes what it is about to use (one attempt, its expected
 * spend) into the state comment before its first model call, and again with the spend so far
 * before it pushes. A job that ends writes its real counts and drops its claim; a job that is
 * killed (a timeout, a superseded Azure build cancelled by otto's own push) leaves the claim, and
 * every later job counts it against max_fix_attempts and limits.pr_usd_per_day. So a fix that is
 * killed every time still runs out of attempts and money. Pure.
 */

export const CiClaim = z.object({
  /** The job that claimed: GITHUB_RUN_ID/GITHUB_RUN_ATTEMPT, BUILD_BUILDID/SYSTEM_JOBATTEMPT, or a random id. */
  job: z.string(),
  head: z.string(),
  at: z.string(),
  /** Attempts the job may use (one: the CI fix flow makes one attempt per job unless max_fix_attempts allows more). */
  attempts: z.number().int().min(0),
  /** Its expected spend, raised to what it spent when it pushes. */
  usd: z.number().min(0),
  /** A later job counted it into fix_attempts and spend (so it is not counted twice); kept to tell a dead claim's head. */
  counted: z.boolean().default(false),
  /** Its job ended and wrote its real counts: nothing more to count, nor a head to free. */
  released: z.boolean().default(false),
});
export type CiClaim = z.infer<typeof CiClaim>;

/**
 * How long a claim stands for a running job: the job's timeout (60 minutes, ci init) and a margin.
 * A claimed head whose claim is older and was never released belongs to a job that is gone: a
 * later event on that head (a re-run, `/otto fix`) may work on it again, its attempt still counted.
 */
export const CLAIM_TTL_MS = 90 * 60_000;

/** Claims the state keeps: the newest. */
export const MAX_CLAIMS = 20;

interface Claimable {
  fix_attempts: number;
  spend?: PrSpend | undefined;
  claims: CiClaim[];
}

/** Another job's claim this job has not yet counted. */
const uncounted = (claims: readonly CiClaim[], job: string): CiClaim[] => claims.filter((c) => c.job !== job && !c.counted && !c.released);

/**
 * The counts a job works from: the state's, plus every claim of another job not yet counted (a
 * killed job's attempt and expected spend), its spend on today's count when made today.
 */
export function honourClaims<S extends Claimable>(state: S, job: string, now: Date): { state: S; honoured: string[] } {
  const open = uncounted(state.claims, job);
  if (open.length === 0) return { state, honoured: [] };
  let spend = state.spend;
  let attempts = state.fix_attempts;
  for (const c of open) {
    attempts += c.attempts;
    // A claim of an earlier day adds to the total only: the day's cap starts again each UTC day.
    const at = new Date(c.at);
    const when = Number.isFinite(at.getTime()) ? at : now;
    const usage = { ...ZERO_USAGE, usd: c.usd };
    spend = utcDay(when) === utcDay(now) ? addSpend(spend, usage, now) : addTotal(spend, c.usd, now);
  }
  const honoured = open.map((c) => c.job);
  const claims = state.claims.map((c) => (honoured.includes(c.job) ? { ...c, counted: true } : c));
  return { state: { ...state, fix_attempts: attempts, ...(spend ? { spend } : {}), claims }, honoured };
}

function addTotal(spend: PrSpend | undefined, usd: number, now: Date): PrSpend {
  const base = spend ?? addSpend(undefined, ZERO_USAGE, now);
  return { ...base, total: { ...base.total, usd: base.total.usd + usd } };
}

/** The claim of `job` on `head`, replacing any it made before. */
export function putClaim(claims: readonly CiClaim[], claim: CiClaim): CiClaim[] {
  return [...claims.filter((c) => c.job !== claim.job), claim].slice(-MAX_CLAIMS);
}

/** A head claimed by a job that never released it and whose claim is past CLAIM_TTL_MS: that job is gone. */
export function deadClaim(claims: readonly CiClaim[], head: string, job: string, now: Date): CiClaim | undefined {
  const mine = claims.filter((c) => c.head === head && c.job !== job);
  const newest = mine[mine.length - 1];
  if (!newest || newest.released) return undefined;
  const at = Date.parse(newest.at);
  return Number.isFinite(at) && now.getTime() - at > CLAIM_TTL_MS ? newest : undefined;
}

/**
 * What one attempt is expected to cost: the dearest fix attempt this PR has recorded, else the
 * day's cap shared over max_fix_attempts (so killed jobs that never record a cost still reach the
 * cap no later than they reach max_fix_attempts).
 */
export function expectedUsd(spend: PrSpend | undefined, prUsdPerDay: number, maxFixAttempts: number): number {
  const dearest = Math.max(0, ...(spend?.fix_attempts ?? []).map((a) => a.usage.usd));
  return dearest > 0 ? dearest : prUsdPerDay / Math.max(1, maxFixAttempts);
}

/** This job's identity in claims: the platform's run (and attempt), else random. */
export function jobId(env: Record<string, string | undefined>, random: () => string): string {
  if (env.GITHUB_RUN_ID) return `gh-${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT ?? "1"}`;
  if (env.BUILD_BUILDID) return `ado-${env.BUILD_BUILDID}-${env.SYSTEM_JOBATTEMPT ?? "1"}`;
  return `job-${random()}`;
}
