import type { Env } from "../core/index.ts";
import { applyRules, ruleSetFromText, RULES_FILE, type RuleSet, type RulesPrompt, type RulesPurpose } from "../rules/index.ts";
import { runGit } from "../workspace/index.ts";

/*
 * The team rules a PR's work is held to (docs/rules.md): `.otto/rules.md` as committed on the PR's
 * target branch, never the PR branch's own copy (a PR cannot change the rules of its own review or
 * of the fixes otto makes on it), and the user's own rules. Used by /pr-review, the review loop,
 * the fix flow and the comment answers.
 */

/** The target branch's rules (`ref`: `<remote>/<target>`) and the user's; never throws (no readable file: no repository rules). */
export async function prRules(dir: string, ref: string, env: Env): Promise<RuleSet> {
  const shown = await runGit(["show", `${ref}:${RULES_FILE}`], { cwd: dir, env }).catch(() => undefined);
  return ruleSetFromText(shown?.exitCode === 0 ? shown.stdout : undefined, env);
}

/** The files a PR changes against `ref` (`git diff --name-only ref...HEAD`); [] when git cannot say. */
export async function prChangedFiles(dir: string, ref: string, env: Env): Promise<string[]> {
  const diff = await runGit(["-c", "core.quotepath=off", "diff", "--name-only", "--no-ext-diff", `${ref}...HEAD`], { cwd: dir, env }).catch(
    () => undefined,
  );
  return diff?.exitCode === 0 ? diff.stdout.split("\n").filter(Boolean) : [];
}

export interface PrWorkRulesInput {
  dir: string;
  remote: string;
  targetBranch: string;
  env: Env;
  /** Where the applied counts go: the PR's repository ("owner/repo"). */
  key: string;
  purpose: RulesPurpose;
  /** Files the work is about besides the PR's changes (the commented file). */
  files?: readonly string[];
}

/** The rules in scope of a PR's changes (and `files`), as a session's system text; "" when none apply. */
export async function prWorkRules(input: PrWorkRulesInput): Promise<RulesPrompt> {
  const ref = `${input.remote}/${input.targetBranch}`;
  const [set, changed] = await Promise.all([prRules(input.dir, ref, input.env), prChangedFiles(input.dir, ref, input.env)]);
  return applyRules(set, input.key, [...changed, ...(input.files ?? [])], input.purpose, input.env);
}
