import type { Env } from "../core/index.ts";
import { applyRules, type RuleSet, type RulesPrompt, type RulesPurpose } from "../rules/index.ts";

/* The team rules in /pr-review and its loop: the target branch's, read by pr/rules.ts (prRules). */

/** The files of a `git diff` (their names after the change). */
export function diffFiles(diff: string): string[] {
  const files = new Set<string>();
  for (const line of diff.split("\n")) {
    const match = /^diff --git a\/.* b\/(.*)$/.exec(line);
    if (match?.[1]) files.add(match[1]);
  }
  return [...files];
}

/** The rules in scope of `files` as a session's system text, counted as applied under `key` (the repository root). */
export function prRulesPrompt(set: RuleSet, key: string, files: readonly string[], purpose: RulesPurpose, env: Env): Promise<RulesPrompt> {
  return applyRules(set, key, files, purpose, env);
}

/** A model's `rule` field, kept only when it names a rule the session was given. */
export function citedRule(rule: string | null | undefined, prompt: RulesPrompt): string | undefined {
  const id = rule?.trim();
  return id && (prompt.repoIds.includes(id) || prompt.userIds.includes(id)) ? id : undefined;
}
