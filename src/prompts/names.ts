/**
 * Every prompt otto ships, one `prompts/<name>.md` file each. The 14 core prompts come
 * first; the rest support them (see docs/prompts.md for who uses which).
 */
export const PROMPT_NAMES = [
  "requirements",
  "research",
  "design",
  "tasks",
  "review",
  "task-briefing",
  "phase-review",
  "external-assumptions",
  "domain-hardening",
  "documentation-alignment",
  "question-harvest",
  "question-resolve",
  "pr-review",
  "pr-comment-respond",
  // Support prompts: the third pass of multi-model review, the JSON repair turn, the second
  // halves of the phase gate and of question auto-resolution, and the two-phase PR fix.
  "refine",
  "json-retry",
  "phase-fix",
  "question-validate",
  "pr-failure-analysis",
  "pr-fix",
  // The secondary model's review of a PR fix before otto pushes it.
  "pr-fix-review",
  // /otto-pr create without --body or --spec: the PR's title and description from the diff.
  "pr-description",
  // A rebase that stopped on conflicts when a PR branch moved while otto was changing it.
  "pr-rebase-conflicts",
  // Connectivity check of each model role (/otto-config models).
  "model-check",
  // /otto-spec: the repair turn for a document that failed otto's checks (tasks.md), and ad-hoc runs.
  "document-retry",
  "spec-run",
  // /otto-spec execute: the executor's prompt for one task.
  "execute-task",
  // /otto-build: the build loop's first prompt, its continuations, and the verify phase's fix and confirm turns.
  "build-start",
  "build-continue",
  "build-fix",
  "build-verify",
  // /otto-agent (the crew): an agent's first prompt, wake-ups of the orchestrator, messages for an
  // agent, and otto's state added to the orchestrator's compaction.
  "crew-agent",
  "crew-wake",
  "crew-deliver",
  "crew-compaction",
  // /pr-review --loop: each reviewer, the comments analyzer, and the fix agent.
  "pr-loop-reviewer",
  "pr-loop-comments",
  "pr-loop-fix",
  // /otto-rules learn: the primary model groups review events into rules, the secondary checks them.
  "rules-learn-group",
  "rules-learn-check",
] as const;

export type PromptName = (typeof PROMPT_NAMES)[number];

export function isPromptName(value: string): value is PromptName {
  return (PROMPT_NAMES as readonly string[]).includes(value);
}
