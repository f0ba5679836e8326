import { Account } from "../../cost/index.ts";
import type { Env } from "../../core/index.ts";
import type { PrBackend } from "../../pr/backend.ts";
import type { TrustPolicy } from "../../pr/comments/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import type { ModelRef, SessionRunner } from "../../session/index.ts";
import { proposeRules, readRules, retireRule, type Rule, type RuleProposal } from "../index.ts";
import { collectSignals, type Signal } from "../signals/index.ts";
import { learnStateFile, readLearnState, recordLearnRun } from "./consumed.ts";
import { candidateText, candidatesOf, Grouping, kept, rememberedProposal, signalLines, toProposal, Verdicts } from "./proposal.ts";

/*
 * One learning run (docs/rules-learning.md): the signals of the repository's recent PRs, those not
 * learned from before, grouped into rules by the primary model, each checked against its events
 * by the secondary, at most `maxRules` written as pending through the store. No new signal: no
 * model call. Every call is charged to an account labelled `rules`, which /otto-cost reports apart.
 */

/** otto's read-only agent: the models may read the repository to judge a rule, never change it. */
const READER = "otto-reviewer";

export interface LearnDeps {
  sessions: SessionRunner;
  primary: ModelRef;
  secondary: ModelRef;
  /** The repository's root: its .otto/rules.md. */
  root: string;
  env: Env;
  parentID?: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  maxRules: number;
  now: () => Date;
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
}

export interface LearnInput {
  backend: PrBackend;
  /** As the backend spells it: `owner/repo`, `org/project/repo`. */
  repo: string;
  since: Date;
  policy: TrustPolicy;
  secrets: readonly string[];
}

export interface LearnReport {
  prs: number;
  signals: number;
  /** Signals not learned from before. */
  fresh: Signal[];
  proposed: Rule[];
  retired: Array<{ id: string; reason: string }>;
  /** Proposals the check dropped. */
  dropped: number;
  modelCalls: number;
  problems: string[];
}

export async function runLearn(deps: LearnDeps, input: LearnInput): Promise<LearnReport> {
  const collected = await collectSignals({ ...input, log: deps.log });
  const file = learnStateFile(deps.env, input.backend.name, input.repo);
  const consumed = new Set((await readLearnState(file)).consumed);
  const fresh = collected.signals.filter((s) => !consumed.has(s.id));
  const report: LearnReport = {
    prs: collected.prs,
    signals: collected.signals.length,
    fresh,
    proposed: [],
    retired: [],
    dropped: 0,
    modelCalls: 0,
    problems: collected.problems,
  };
  if (fresh.length === 0) {
    await recordLearnRun(file, [], deps.now());
    return report;
  }

  const remembered = fresh
    .filter((s) => s.kind === "remember")
    .map(rememberedProposal)
    .filter((p): p is RuleProposal => p !== undefined);
  const judged = fresh.filter((s) => s.kind !== "remember");
  const proposals: RuleProposal[] = remembered.slice(0, deps.maxRules);
  const room = deps.maxRules - proposals.length;
  if (judged.length > 0 && room > 0) {
    const account = new Account(`rules learn ${input.repo}`, { labels: { repo: deps.root, rules: "learn" } });
    const existing = (await readRules(deps.root)).rules;
    const child = (model: ModelRef, title: string) => ({
      ...(deps.parentID ? { parentID: deps.parentID } : {}),
      directory: deps.root,
      agent: READER,
      model,
      title,
      timeoutMs: deps.timeoutMs,
      account,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    const groupPrompt = renderPrompt(
      "rules-learn-group",
      { signals: signalLines(judged), max_rules: room, existing_rules: existingText(existing) },
      { env: deps.env },
    );
    report.modelCalls++;
    const grouping = await deps.sessions.runChildJson(child(deps.primary, `otto: learn rules from ${input.repo}`), groupPrompt, Grouping);
    const candidates = candidatesOf(grouping.value, judged, existing, room);
    if (candidates.length > 0) {
      report.modelCalls++;
      const checked = await deps.sessions.runChildJson(
        child(deps.secondary, `otto: check ${candidates.length} learned rule(s)`),
        renderPrompt("rules-learn-check", { proposals: candidateText(candidates) }, { env: deps.env }),
        Verdicts,
      );
      const keep = kept(candidates, checked.value);
      report.dropped = candidates.length - keep.length;
      proposals.push(...keep.filter((c) => c.kind === "rule").map(toProposal));
      for (const c of keep.filter((c) => c.kind === "retire")) {
        const reason = `learned: ${c.reason || "later reviews contradict it"} (${c.signals.map((s) => s.url).join(", ")})`;
        await retireRule(deps.root, c.id ?? "", reason);
        report.retired.push({ id: c.id ?? "", reason });
      }
    }
  }
  if (proposals.length > 0) report.proposed = await proposeRules(deps.root, proposals);
  // Only after the models answered and the rules are written: a failed run learns from the same signals next time.
  await recordLearnRun(
    file,
    fresh.map((s) => s.id),
    deps.now(),
  );
  return report;
}

/** The repository's rules as the grouping sees them: the rejected ones too, so it does not propose them again in other words. */
function existingText(rules: readonly Rule[]): string {
  return rules
    .filter((r) => r.status !== "retired")
    .map((r) => `- ${r.id} (${r.status}, scope ${r.scope.join(", ")}): ${r.text}`)
    .join("\n");
}
