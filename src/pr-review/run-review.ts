import { codebaseSummaryFor } from "../analysis/index.ts";
import { OttoError, redact } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { prRules, type PrInfo } from "../pr/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import { gitOutput, headSha } from "../workspace/index.ts";
import { formatModel, type ModelRef } from "../session/index.ts";
import type { ReviewCheckout } from "./checkout.ts";
import { classifyComments } from "./classify.ts";
import { commentableLines } from "./diff-lines.ts";
import type { Draft } from "./draft.ts";
import { ReviewEnvelope } from "./envelope.ts";
import { citedRule, diffFiles, prRulesPrompt } from "./rules.ts";

/**
 * One model turn that reads a whole PR (diff, files, callers): the same bound as a spec stage's
 * default (spec.stage_timeout, 20 min).
 */
const REVIEW_TIMEOUT_MS = 20 * 60_000;

export interface ReviewCheckoutInput {
  runtime: Runtime;
  pr: PrInfo;
  checkout: ReviewCheckout;
  model: ModelRef;
  /** Redacted from the model's comments before they are shown or saved. */
  secrets: readonly string[];
  sessionID: string;
  focus?: string;
  /** The PR's changes to OpenCode configuration files otto removed from the checkout (src/pr-review/untrusted-config.ts). */
  openCodeConfigDiff?: string;
  signal?: AbortSignal;
  progress(message: string): void;
  /** A line for the command's report. */
  report(line: string): void;
  /** The PR's open comments for the prompt (renderExistingComments); undefined when none or unreadable. */
  existingComments(): Promise<string | undefined>;
  /** Where the rules' applied counts go: the repository's root (docs/rules.md). */
  rulesKey: string;
}

/**
 * The largest diff a review reads: git's output is counted as it streams and git is stopped past
 * it (`git_output`), so a PR that adds a huge generated file cannot fill memory. Far more than a
 * model can review.
 */
const MAX_DIFF_BYTES = 16 * 1024 * 1024;

/** `git diff <remote>/<target>...HEAD` with fixed prefixes and unquoted paths, whatever the user's git config says. */
function prDiff(checkout: ReviewCheckout, pr: PrInfo, runtime: Runtime): Promise<string> {
  const args = [
    "-c",
    "core.quotepath=off",
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    `${checkout.remote}/${pr.targetBranch}...HEAD`,
  ];
  return gitOutput(args, { cwd: checkout.dir, env: runtime.env, maxBuffer: MAX_DIFF_BYTES });
}

/**
 * The review itself, in a checkout of the PR: one read-only `otto-reviewer` session with the
 * pr-review prompt, its comments checked against the diff otto computes itself. Returns the draft.
 */
export async function reviewCheckout(input: ReviewCheckoutInput): Promise<Draft> {
  const { runtime, pr, checkout } = input;
  const base = `${checkout.remote}/${pr.targetBranch}`;
  const diff = await prDiff(checkout, pr, runtime);
  // Deleted and binary files count too, though no comment can go inline on them.
  const files = diff.split("\n").filter((line) => line.startsWith("diff --git ")).length;
  if (files === 0) {
    throw new OttoError(
      "pr_review_empty",
      `PR #${pr.number} changes nothing against ${base}.`,
      "Check that the PR's branch has commits, then review it again.",
    );
  }
  const commentable = commentableLines(diff);
  const model = formatModel(input.model);
  input.report(`Reviewing changes (${files} file${files === 1 ? "" : "s"}, git diff ${base}...HEAD) with ${model}...`);
  input.progress(`pr-review: ${model} reviewing PR #${pr.number}`);
  const [summary, existing, ruleSet] = await Promise.all([
    codebaseSummaryFor(checkout.dir, runtime.log),
    input.existingComments(),
    prRules(checkout.dir, base, runtime.env),
  ]);
  for (const problem of ruleSet.problems) input.report(`Note: team rules: ${problem}`);
  const rules = await prRulesPrompt(ruleSet, input.rulesKey, diffFiles(diff), "review", runtime.env);
  if (rules.repoIds.length + rules.userIds.length > 0)
    input.report(`Team rules in scope: ${[...rules.repoIds, ...rules.userIds].join(", ")}`);
  const prompt = renderPrompt(
    "pr-review",
    {
      pr_title: pr.title,
      pr_description: pr.description ?? "",
      target_branch: base,
      pr_url: pr.url,
      ...(input.focus ? { focus: input.focus } : {}),
      ...(summary ? { codebase_summary: summary } : {}),
      ...(existing ? { existing_comments: existing } : {}),
      ...(input.openCodeConfigDiff ? { opencode_config_diff: input.openCodeConfigDiff } : {}),
    },
    { env: runtime.env },
  );
  const reply = await runtime.sessions.runChildJson(
    {
      parentID: input.sessionID,
      directory: checkout.dir,
      agent: "otto-reviewer",
      model: input.model,
      title: `otto: review PR #${pr.number}`,
      timeoutMs: REVIEW_TIMEOUT_MS,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(rules.text ? { system: rules.text } : {}),
    },
    prompt,
    ReviewEnvelope,
  );
  const clean = (text: string) => redact(text, input.secrets);
  return {
    version: 1,
    pr: {
      provider: pr.provider,
      repo: pr.repo,
      number: pr.number,
      url: pr.url,
      title: pr.title,
      sourceBranch: pr.sourceBranch,
      targetBranch: pr.targetBranch,
      headSha: pr.headSha,
    },
    reviewedSha: (await headSha(checkout.dir, { env: runtime.env })) ?? "",
    model,
    createdAt: new Date().toISOString(),
    summary: clean(reply.value.summary),
    comments: classifyComments(
      reply.value.comments.map(({ rule, ...c }) => {
        const cited = citedRule(rule, rules);
        return { ...c, title: clean(c.title), body: clean(c.body), ...(cited ? { rule: cited } : {}) };
      }),
      commentable,
    ),
    posted: [],
  };
}
