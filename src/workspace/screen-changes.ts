import type { Env } from "../core/index.ts";
import { readChangeSet } from "./change-set.ts";
import { describeWeakenings, detectWeakenedChecks, splitByCause, type ChangeSet, type Weakening } from "./detect-weakened-checks.ts";
import { describeControlChanges, gitControlChanges, type GitControlSnapshot } from "./git-guard.ts";
import type { TreeSnapshot } from "./snapshot.ts";

/*
 * The check every PR flow runs on its sessions' work before a model reviews it and otto pushes it:
 * the git configuration, hooks and info/attributes are as they were, and nothing weakens the
 * project's checks except in files the flow's own analysis named as the cause.
 */

export interface ScreenInput {
  dir: string;
  /** The commit the flow started from (HEAD before its first session). */
  since: string;
  baseline: TreeSnapshot;
  env: Env;
  /** Files a flagged change is allowed in (the failure analysis named them as the cause). */
  causeFiles: readonly string[];
  guard?: GitControlSnapshot | undefined;
}

export type Screened =
  /** Git's configuration, hooks or info/attributes changed: nothing may be committed. */
  | { kind: "tampered"; detail: string }
  /** The change weakens the checks in files nobody named as the cause. */
  | { kind: "refused"; refused: Weakening[]; allowed: Weakening[]; detail: string }
  /** Clear; `allowed` (flags in cause files) goes to the reviewing model under its own heading. */
  | { kind: "clear"; allowed: Weakening[]; change: ChangeSet };

export async function screenChanges(input: ScreenInput): Promise<Screened> {
  if (input.guard) {
    const changes = await gitControlChanges(input.guard, { env: input.env });
    if (changes.length > 0)
      return { kind: "tampered", detail: `Nothing committed or pushed: ${describeControlChanges(input.dir, changes)}` };
  }
  const change = await readChangeSet({ dir: input.dir, since: input.since, baseline: input.baseline, env: input.env });
  const { refused, allowed } = splitByCause(detectWeakenedChecks(change), input.causeFiles);
  if (refused.length > 0) return { kind: "refused", refused, allowed, detail: describeWeakenings(refused) };
  return { kind: "clear", allowed, change };
}

/** The reviewing model's heading text: each flagged change the analysis allowed, and why it is flagged. */
export function describeAllowed(allowed: readonly Weakening[]): string | undefined {
  if (allowed.length === 0) return undefined;
  return allowed.map((f) => `- ${f.path}: ${f.reason}`).join("\n");
}

/** What a session that weakened the checks is told in its next attempt. */
export function weakenedNote(refused: readonly Weakening[]): string {
  return [
    "Otto refused the previous session's fix because it weakens the project's checks instead of fixing the code:",
    ...refused.map((f) => `- ${f.path}: ${f.reason}`),
    "Those changes are still in the working tree: undo them (restore deleted tests, remove the skip markers and suppressions, put the configuration back) and fix the cause in the code under test.",
  ].join("\n");
}
