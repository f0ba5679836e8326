import type { CheckState } from "../types.ts";
import type { Fingerprint } from "./fingerprint.ts";

/*
 * Is it the PR's failure? (pure; docs/pr-fix.md). Before any model call, each failed check is
 * judged from what otto could find out in code: its failure's fingerprint in the flake ledger,
 * the default branch's newest completed run of the same check, and the same command run in otto's
 * sandbox on the PR's head. The PR is fixed only when at least one check fails for its own reasons.
 */

export interface CheckFacts {
  name: string;
  url?: string | undefined;
  fingerprint?: Fingerprint | undefined;
  /** Times the flake ledger holds this fingerprint (0: never judged flaky). */
  knownFlake: number;
  /** The default branch's newest completed run of the check, with its failure's fingerprint when it failed. */
  base?: { state: CheckState; sha: string; fingerprint?: Fingerprint | undefined } | undefined;
  /** The project's checks this CI check runs (its log shows the command), and whether all passed in otto's sandbox. */
  local?: { commands: string[]; passed: boolean } | undefined;
}

export type CheckJudgement = "known_flake" | "inherited" | "passes_locally" | "reproduced" | "unknown";

export type Screening =
  /** Every failed check fails on the default branch the same way. */
  | { kind: "inherited" }
  /** Every failed check is a known flake or passes in otto's sandbox: a flake, no fix session. */
  | { kind: "flaky"; how: "known" | "local" }
  /** Nothing tells yet: re-run the failed jobs once (pr.flakes.rerun) and judge by the result. */
  | { kind: "probe" }
  /** The PR's own failure: the fix flow runs, and the analysis is told what otto found. */
  | { kind: "pr"; findings: string[] };

export interface ScreenOptions {
  /** The failed jobs of this head were re-run already (an earlier probe or infrastructure verdict). */
  rerunDone: boolean;
  /** pr.flakes.rerun */
  rerun: boolean;
}

const short = (sha: string): string => sha.slice(0, 7);

/** One check's judgement: a known flake first (no forge call needed), then main, then the local run. */
export function judgeCheck(facts: CheckFacts, options: Pick<ScreenOptions, "rerunDone">): CheckJudgement {
  if (facts.fingerprint && facts.knownFlake > 0) return "known_flake";
  const base = facts.base;
  if (facts.fingerprint && base?.state === "failure" && base.fingerprint?.id === facts.fingerprint.id) return "inherited";
  if (facts.local && !facts.local.passed) return "reproduced";
  // After a re-run of this head failed again, passing here no longer makes it a flake.
  if (facts.local?.passed && !options.rerunDone) return "passes_locally";
  return "unknown";
}

export function screenFailure(checks: readonly CheckFacts[], options: ScreenOptions): Screening {
  if (checks.length === 0) return { kind: "pr", findings: [] };
  const judged = checks.map((c) => ({ facts: c, judgement: judgeCheck(c, options) }));
  if (judged.every((j) => j.judgement === "inherited")) return { kind: "inherited" };
  if (judged.every((j) => j.judgement === "known_flake" || j.judgement === "passes_locally"))
    return { kind: "flaky", how: judged.some((j) => j.judgement === "known_flake") ? "known" : "local" };
  if (options.rerun && !options.rerunDone && !judged.some((j) => j.judgement === "reproduced")) return { kind: "probe" };
  return { kind: "pr", findings: judged.map((j) => finding(j.facts, j.judgement, options)) };
}

/** What otto found about one check, for the analysis prompt and the PR document. */
export function finding(facts: CheckFacts, judgement: CheckJudgement, options: Pick<ScreenOptions, "rerunDone">): string {
  const parts: string[] = [];
  if (judgement === "reproduced")
    parts.push(`reproduced locally: ${facts.local?.commands.map((c) => `\`${c}\``).join(", ")} fails in otto's sandbox on the PR's head`);
  else if (facts.local?.passed)
    parts.push(`${facts.local.commands.map((c) => `\`${c}\``).join(", ")} passes in otto's sandbox on the PR's head`);
  else parts.push("not run locally (its log shows none of the project's checks)");
  if (judgement === "known_flake") parts.push(`a known flaky failure (${facts.knownFlake} time(s) in the flake ledger)`);
  if (judgement === "inherited") parts.push(`the default branch fails the same way (${short(facts.base?.sha ?? "")})`);
  else if (facts.base?.state === "failure") parts.push(`the default branch's newest run (${short(facts.base.sha)}) fails too, differently`);
  else if (facts.base)
    parts.push(
      `the default branch's newest run (${short(facts.base.sha)}) ${facts.base.state === "success" ? "passes" : `is ${facts.base.state}`}`,
    );
  if (options.rerunDone) parts.push("failed again after a re-run of the failed jobs on this commit");
  if (!facts.fingerprint) parts.push("its log names no failing test or error line otto could fingerprint");
  else if (facts.knownFlake === 0) parts.push("first seen: not in the flake ledger");
  return `- ${facts.name}: ${parts.join("; ")}`;
}
