/**
 * The build loop's policy, pure: what to do after a builder turn, from what otto observed. The
 * loop (run-loop.ts) gathers the observation and carries the decision out.
 */
export interface Observation {
  /** Turns prompted so far for this target, the one just finished included. */
  iteration: number;
  maxIterations: number;
  /** Tasks not done yet, and all of them. */
  remaining: number;
  total: number;
  /** The tasks file's text differs from what it was when the turn was prompted. */
  tasksChanged: boolean;
  /** Some file of the working tree (outside the tasks file) changed during the turn. */
  filesChanged: boolean;
  /** The reply says work got done (prompts.ts claimsProgress). */
  claimedProgress: boolean;
  /** Turns in a row, before this one, in which nothing changed. */
  stagnantTurns: number;
  /** Stop after this many turns in a row without any change (K). */
  stagnationLimit: number;
  /** Someone else aborted the turn or wrote in the builder's session. */
  interrupted: boolean;
  /** `/otto-build stop` was asked for. */
  stopRequested: boolean;
  /** The turn just finished was a verify turn (the agent was asked to fix or confirm). */
  verifying: boolean;
  /** The reply ends with the VERIFIED marker. */
  claimedVerified: boolean;
  /**
   * spec.verify, run by otto once every task is done; undefined while tasks remain. `blocking`: a
   * check fails that the build caused (it passed before the build, or fails more than it did, per
   * the baseline); a failure that was there before and is not worse is not the builder's to fix.
   */
  checks?: { passed: boolean; blocking: boolean };
}

/** Why a continuation reminds the builder to update the tasks file (the texts are in prompts.ts). */
export type Reminder = "files_changed" | "claimed_progress";

export type Decision =
  | { kind: "stop"; reason: "stop_requested" }
  | { kind: "pause"; reason: "interrupted" }
  | { kind: "stop"; reason: "stagnation" | "max_iterations" }
  | { kind: "continue"; remind?: Reminder }
  | { kind: "fix" }
  | { kind: "confirm" }
  | { kind: "done" };

/** Nothing at all changed in the turn: no task status, no file. */
export function isStagnant(o: Pick<Observation, "tasksChanged" | "filesChanged">): boolean {
  return !o.tasksChanged && !o.filesChanged;
}

export function decide(o: Observation): Decision {
  if (o.stopRequested) return { kind: "stop", reason: "stop_requested" };
  if (o.interrupted) return { kind: "pause", reason: "interrupted" };
  // Done is judged before the limits: a loop that just finished must not be stopped for them. Only
  // pre-existing failures left: done too, and the build's verdict says unverified (run-build.ts).
  if (o.remaining === 0 && o.checks && !o.checks.blocking && o.verifying && o.claimedVerified) return { kind: "done" };
  if (isStagnant(o) && o.stagnantTurns + 1 >= o.stagnationLimit) return { kind: "stop", reason: "stagnation" };
  if (o.iteration >= o.maxIterations) return { kind: "stop", reason: "max_iterations" };
  if (o.remaining > 0) return { kind: "continue", remind: reminder(o) };
  if (o.checks?.blocking) return { kind: "fix" };
  return { kind: "confirm" };
}

/**
 * The tasks file is what otto counts: when it did not change although the turn did work, or the
 * builder says it did, the next prompt reminds it. A claim alone still counts toward stagnation.
 */
function reminder(o: Observation): Reminder | undefined {
  if (o.tasksChanged) return undefined;
  if (o.filesChanged) return "files_changed";
  return o.claimedProgress ? "claimed_progress" : undefined;
}

/** The stagnation counter after a turn. */
export function nextStagnant(o: Pick<Observation, "tasksChanged" | "filesChanged" | "stagnantTurns">): number {
  return isStagnant(o) ? o.stagnantTurns + 1 : 0;
}
