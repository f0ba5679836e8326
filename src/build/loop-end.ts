import type { NotifyEvent } from "../notify/index.ts";
import type { LoopEnd } from "./run-loop.ts";
import type { BuildState, BuildTarget } from "./state.ts";
import { unverifiedHeadline } from "./verdict.ts";

/*
 * How a build loop's end reads, pure: the state's status, the note shown and saved, the final
 * commit's message, the notification for a person.
 */

export function statusOf(end: LoopEnd): BuildState["status"] {
  if (end.kind === "done") return "done";
  if (end.kind === "pause") return "paused";
  if (end.kind === "failed") return "failed";
  // A budget stop is a stop: the loop resumes from it.
  return end.reason === "stop_requested" || end.reason === "budget"
    ? "stopped"
    : end.reason === "stagnation"
      ? "stagnated"
      : "max_iterations";
}

/** What a loop that ended done without any check to run says instead of "verified". */
export const UNVERIFIED = "done, unverified: no checks found";

/**
 * Verified means checks ran on the final tree and each passed; a builder's VERIFIED with nothing
 * to run proves nothing, and a check that still fails, even one that failed before the build,
 * leaves the build unverified.
 */
export function verified(end: Extract<LoopEnd, { kind: "done" }>): boolean {
  return end.verdict?.verified === true;
}

export function noteOf(end: LoopEnd): string {
  switch (end.kind) {
    case "done":
      if (verified(end)) return `done and verified in ${end.iterations} turn(s)`;
      if (end.verdict) return `done, unverified: ${unverifiedHeadline(end.verdict)}, after ${end.iterations} turn(s)`;
      return `${UNVERIFIED}, after ${end.iterations} turn(s) (set spec.verify to have otto run some)`;
    case "pause":
      return "paused: the builder session was interrupted (a message or an abort from someone else)";
    case "failed":
      return `the builder gave up: ${end.reason}`;
    case "stop":
      return end.reason === "stop_requested"
        ? "stopped on request"
        : end.reason === "budget"
          ? `stopped: ${end.message.replace(/\.$/, "")}, after ${end.iterations} turn(s)`
          : end.reason === "stagnation"
            ? `stopped: nothing changed (no task status, no file) for several turns in a row, after ${end.iterations} turn(s)`
            : `stopped: max iterations (${end.iterations}) reached`;
  }
}

export function commitMessage(target: BuildTarget, end: Extract<LoopEnd, { kind: "done" }>): string {
  const failing = new Map((end.verdict?.failing ?? []).map((f) => [f.command, f]));
  const checks = end.checks.length
    ? `${end.checks
        .map((c) => {
          const f = failing.get(c.command);
          return `${c.command}: ${f ? `${f.ended}${f.before ? ", it failed before the build too" : ""}` : "passed"}`;
        })
        .join(", ")}${failing.size ? " (unverified)" : ""}`
    : "none, no checks found (unverified)";
  return `feat(${target.name}): implementation complete\n\nBuilt by /otto-build in ${end.iterations} turn(s); verify: ${checks}.`;
}

export function humanNeeded(target: BuildTarget, note: string): NotifyEvent {
  return {
    kind: "human_needed",
    title: `otto build ${target.name}: ${note.split(":")[0] ?? note}`,
    text: note,
    facts: { target: `${target.kind} ${target.name}` },
  };
}
