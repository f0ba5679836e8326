import { z } from "zod";
import { formatZodIssues, redactDeep } from "../../core/index.ts";
import { PrFrontmatter, type PrDocument } from "../store/document.ts";
import { authoredBy, type PrComment } from "../types.ts";
import { OTTO_MARKER } from "../store/markers.ts";
import { CiClaim } from "./claims.ts";
import { CiFlake, MAX_CI_FLAKES } from "./flake-state.ts";
import { joinState, MAX_HANDLED_HEADS } from "./merge-state.ts";

/*
 * otto's state for one PR when it runs in CI, kept on the forge instead of a runner's disk: one
 * comment of otto's own on the PR carrying the watcher document's machine fields (fix attempts,
 * the head last fixed, handled comments, spend) as base64 JSON in a hidden HTML comment. Only a
 * comment by the token's own user counts: anyone can paste the marker, and a pasted one must
 * neither stop nor steer otto. Pure; state-comment.ts does the I/O.
 */

/** Distinct from OTTO_MARKER (which every otto comment carries) and from post-once's markers. */
export const STATE_MARKER = "otto:state";
const STATE_PATTERN = /<!-- otto:state v1(?::([a-z]+))? ([A-Za-z0-9+/=]+) -->/;

export { MAX_HANDLED_HEADS } from "./merge-state.ts";

/**
 * Which of otto's state comments a job writes: jobs that can run at the same time write different
 * ones (Azure: the PR build's fix job, the comment pipeline), so neither overwrites the other; a
 * reader joins them (merge-state.ts). GitHub runs one job per PR at a time: one comment, `main`.
 */
export type StateSlot = "main" | "build" | "comments";

const f = PrFrontmatter.shape;

export const CiState = z.object({
  fix_attempts: f.fix_attempts,
  rerun_shas: f.rerun_shas,
  fix_sha: f.fix_sha,
  fix_base_sha: f.fix_base_sha,
  gave_up: f.gave_up,
  human_sha: f.human_sha,
  config_hold_sha: f.config_hold_sha,
  seen_comment_ids: f.seen_comment_ids,
  seen_before: f.seen_before,
  comment_failures: f.comment_failures,
  workflow_done: f.workflow_done,
  green_sha: f.green_sha,
  spend: f.spend,
  cap_hold: f.cap_hold,
  /** A re-run to tell a flake, waiting for a later job to see it (pr.flakes.rerun). */
  flake_probe: f.flake_probe,
  /** This PR's flake verdicts: the job's flake ledger, which no runner keeps (flake-state.ts). */
  flakes: z.array(CiFlake).default([]),
  /** Head commits a CI run started fixing: a second run on the same head does nothing. */
  handled_heads: z.array(z.string()).default([]),
  /** What fix jobs claimed before their work (claims.ts): counted by later jobs when the job never ended. */
  claims: z.array(CiClaim).default([]),
  /** When the state was written. */
  updated: z.string().optional(),
});
export type CiState = z.infer<typeof CiState>;

export const EMPTY_STATE: CiState = CiState.parse({});

/** The comment's body: otto's marker (so no flow takes it for a reviewer's), the state, one line for people. */
export function renderState(state: CiState, secrets: readonly string[], slot: StateSlot = "main"): string {
  const clean = CiState.parse(redactDeep(state, secrets));
  clean.handled_heads = clean.handled_heads.slice(-MAX_HANDLED_HEADS);
  clean.flakes = clean.flakes.slice(-MAX_CI_FLAKES);
  const data = Buffer.from(JSON.stringify(clean), "utf8").toString("base64");
  const fixed = clean.fix_sha ? `; last fix \`${clean.fix_sha.slice(0, 7)}\`` : "";
  const flakes = clean.flakes.length > 0 ? `; ${clean.flakes.length} flaky failure(s)` : "";
  return `${OTTO_MARKER}\n<!-- ${STATE_MARKER} v1${slot === "main" ? "" : `:${slot}`} ${data} -->\n_otto keeps its CI state for this PR in this comment (${clean.fix_attempts} fix attempt(s)${fixed}${flakes}); it updates it in place._`;
}

export type ParsedState = ({ ok: true; state: CiState } | { ok: false; error: string }) & { slot: StateSlot };

/** The state in a comment body; `undefined` when the body carries no state marker. */
export function parseState(body: string): ParsedState | undefined {
  const match = STATE_PATTERN.exec(body);
  if (!match) return undefined;
  const slot: StateSlot = match[1] === "build" || match[1] === "comments" ? match[1] : "main";
  try {
    const parsed = CiState.safeParse(JSON.parse(Buffer.from(match[2] ?? "", "base64").toString("utf8")));
    return parsed.success
      ? { ok: true, state: parsed.data, slot }
      : { ok: false, error: formatZodIssues(parsed.error.issues, { inline: true }), slot };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error), slot };
  }
}

export interface FoundState {
  /** The state of all of otto's state comments, joined. */
  state: CiState;
  /** The comment of the slot asked for, to update in place; undefined when there is none yet. */
  commentId?: string;
  /** Why comments carrying the marker were not used (another author, unreadable). */
  ignored: string[];
}

/**
 * The state of the PR from its comments: the newest readable one written by `me` (the token's
 * user). Without `me` no comment can be told from a forgery, so none is trusted.
 */
export function findState(comments: readonly PrComment[], me: string | undefined, slot: StateSlot = "main"): FoundState {
  const ignored: string[] = [];
  const slots = new Map<StateSlot, { state: CiState; commentId: string }>();
  for (const comment of comments) {
    const parsed = parseState(comment.body);
    if (!parsed) continue;
    if (!authoredBy(comment, me)) {
      ignored.push(
        `a state comment by ${comment.author} (${comment.id}) is ignored: only the token's user${me ? ` (${me})` : ""} writes otto's state`,
      );
      continue;
    }
    if (!parsed.ok) {
      ignored.push(`otto's state comment ${comment.id} is unreadable (${parsed.error}); it is replaced`);
      slots.set(parsed.slot, { state: EMPTY_STATE, commentId: comment.id });
      continue;
    }
    slots.set(parsed.slot, { state: parsed.state, commentId: comment.id });
  }
  const states = [...slots.values()].map((s) => s.state);
  const state = states.reduce<CiState | undefined>((a, b) => (a ? joinState(a, b) : b), undefined) ?? EMPTY_STATE;
  const own = slots.get(slot)?.commentId;
  return { state, ...(own ? { commentId: own } : {}), ignored };
}

/** The PR document a flow works on, with the state's fields over the fresh one's. */
export function withState(doc: PrDocument, state: CiState): PrDocument {
  const own = new Set(["handled_heads", "updated", "flakes", "claims"]);
  const defined = Object.fromEntries(Object.entries(state).filter(([k, v]) => v !== undefined && !own.has(k)));
  return { ...doc, data: { ...doc.data, ...defined } };
}

/** The state after a flow: the document's fields, the heads handled so far plus `handled`, the PR's flake verdicts (default: as before). */
export function stateOf(
  doc: PrDocument,
  before: CiState,
  now: Date,
  handled?: string,
  flakes: readonly CiFlake[] = before.flakes,
): CiState {
  const fields = Object.fromEntries(Object.keys(CiState.shape).map((k) => [k, (doc.data as Record<string, unknown>)[k]]));
  const heads = handled && !before.handled_heads.includes(handled) ? [...before.handled_heads, handled] : before.handled_heads;
  return CiState.parse({
    ...fields,
    handled_heads: heads.slice(-MAX_HANDLED_HEADS),
    flakes: flakes.slice(-MAX_CI_FLAKES),
    claims: before.claims,
    updated: now.toISOString(),
  });
}
