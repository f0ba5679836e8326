import { isDeepStrictEqual } from "node:util";
import type { PrSpend } from "../store/document.ts";
import { MAX_CLAIMS, type CiClaim } from "./claims.ts";
import { MAX_CI_FLAKES, type CiFlake } from "./flake-state.ts";
import type { CiState } from "./state.ts";
import { MAX_SEEN_IDS } from "../store/seen.ts";

/*
 * Two jobs of one PR can write its state comment at the same time (Azure has no concurrency group
 * between the PR build's fix job and the comment pipeline). A job writes what it changed merged
 * into the state as it is on the forge then, never the state it read at its start: handled heads,
 * comment ids, re-runs and flakes are united, attempts, failures and spend take the larger, and a
 * field the job left as it found it takes the forge's current value. Pure; state-comment.ts reads,
 * writes and retries.
 */

/** Heads whose failure a CI run took on: kept bounded, the newest last. */
export const MAX_HANDLED_HEADS = 50;

const union = <T>(a: readonly T[], b: readonly T[]): T[] => [...a, ...b.filter((x) => !a.includes(x))];

/** The later of two spends: the newer day's today; the larger of each total and item list united. */
function mergeSpend(a: PrSpend | undefined, b: PrSpend | undefined): PrSpend | undefined {
  if (!a || !b) return a ?? b;
  const today = a.day === b.day ? (a.today.usd >= b.today.usd ? a.today : b.today) : a.day > b.day ? a.today : b.today;
  const byKey = <T>(x: readonly T[], y: readonly T[], key: (t: T) => string): T[] => [
    ...x,
    ...y.filter((t) => !x.some((u) => key(u) === key(t))),
  ];
  return {
    day: a.day > b.day ? a.day : b.day,
    today,
    total: a.total.usd >= b.total.usd ? a.total : b.total,
    fix_attempts: byKey(a.fix_attempts, b.fix_attempts, (t) => String(t.attempt)).slice(-50),
    comments: byKey(a.comments, b.comments, (t) => t.id).slice(-50),
  };
}

/** Claims united by job; counted and released are never undone (a released claim stays, so a join cannot bring it back). */
function mergeClaims(mine: readonly CiClaim[], fresh: readonly CiClaim[], release: readonly string[]): CiClaim[] {
  const jobs = union(
    fresh.map((c) => c.job),
    mine.map((c) => c.job),
  );
  return jobs
    .map((job) => {
      const m = mine.find((c) => c.job === job);
      const f = fresh.find((c) => c.job === job);
      const c = (m ?? f) as CiClaim;
      return {
        ...c,
        attempts: Math.max(m?.attempts ?? 0, f?.attempts ?? 0),
        usd: Math.max(m?.usd ?? 0, f?.usd ?? 0),
        counted: (m?.counted ?? false) || (f?.counted ?? false),
        released: release.includes(job) || (m?.released ?? false) || (f?.released ?? false),
      };
    })
    .slice(-MAX_CLAIMS);
}

const flakeKey = (f: CiFlake): string => `${f.fingerprint}\n${f.head}\n${f.check}`;

export interface MergeInput {
  /** The state the job started from. */
  base: CiState;
  /** The state the job means to write. */
  mine: CiState;
  /** The state on the forge now. */
  fresh: CiState;
  /** Jobs whose claims this write ends (the job's own, when it is done). */
  release?: readonly string[];
}

/** The state to write: the job's changes over the forge's current state. */
export function mergeState({ base, mine, fresh, release = [] }: MergeInput): CiState {
  // A single value the job did not change is the forge's; one it changed is the job's.
  return combine(mine, fresh, release, (k) => (isDeepStrictEqual(mine[k], base[k]) ? fresh[k] : mine[k]));
}

/** Two state comments read together (state.ts, slots): for single values, the one written later. */
export function joinState(a: CiState, b: CiState): CiState {
  const [older, newer] = (a.updated ?? "") <= (b.updated ?? "") ? [a, b] : [b, a];
  return combine(newer, older, [], (k) => newer[k] ?? older[k]);
}

function combine(mine: CiState, fresh: CiState, release: readonly string[], pick: <K extends keyof CiState>(k: K) => CiState[K]): CiState {
  const failures = { ...fresh.comment_failures };
  for (const [id, n] of Object.entries(mine.comment_failures)) failures[id] = Math.max(n, failures[id] ?? 0);
  const flakes = [...fresh.flakes];
  for (const f of mine.flakes) if (!flakes.some((g) => flakeKey(g) === flakeKey(f))) flakes.push(f);
  const spend = mergeSpend(mine.spend, fresh.spend);
  return {
    fix_attempts: Math.max(mine.fix_attempts, fresh.fix_attempts),
    rerun_shas: mine.rerun_shas || fresh.rerun_shas ? union(fresh.rerun_shas ?? [], mine.rerun_shas ?? []).slice(-50) : undefined,
    fix_sha: pick("fix_sha"),
    fix_base_sha: pick("fix_base_sha"),
    gave_up: mine.gave_up ?? fresh.gave_up,
    human_sha: pick("human_sha"),
    config_hold_sha: pick("config_hold_sha"),
    seen_comment_ids: union(fresh.seen_comment_ids, mine.seen_comment_ids).slice(-MAX_SEEN_IDS),
    seen_before: pick("seen_before"),
    comment_failures: failures,
    workflow_done: union(fresh.workflow_done, mine.workflow_done),
    green_sha: pick("green_sha"),
    ...(spend ? { spend } : {}),
    cap_hold: pick("cap_hold"),
    flake_probe: pick("flake_probe"),
    flakes: flakes.slice(-MAX_CI_FLAKES),
    handled_heads: union(fresh.handled_heads, mine.handled_heads).slice(-MAX_HANDLED_HEADS),
    claims: mergeClaims(mine.claims, fresh.claims, release),
    updated: [mine.updated, fresh.updated].filter(Boolean).sort().pop(),
  };
}

/**
 * Whether `stored` already holds what the write adds (it landed, or a later write carried it): the
 * united and counted fields. Single values are the newest writer's by design and not compared.
 */
export function holds(input: Omit<MergeInput, "fresh">, stored: CiState): boolean {
  const merged = mergeState({ ...input, fresh: stored });
  const keys = ["fix_attempts", "seen_comment_ids", "comment_failures", "handled_heads", "claims", "flakes", "workflow_done"] as const;
  return (
    keys.every((k) => isDeepStrictEqual(clean(merged[k]), clean(stored[k]))) &&
    (merged.spend?.today.usd ?? 0) === (stored.spend?.today.usd ?? 0) &&
    (merged.spend?.total.usd ?? 0) === (stored.spend?.total.usd ?? 0)
  );
}

const clean = (o: unknown): unknown => JSON.parse(JSON.stringify(o ?? null)) as unknown;
