import type { PromptName } from "./names.ts";

/** A value a template can use: text, a number, a flag, or lists/records of these (for `{{list x}}`, `{{#each}}`). */
export type PromptValue = string | number | boolean | readonly PromptValue[] | { readonly [key: string]: PromptValue };

interface Contract {
  /** Must be passed on every render (may be an empty string where the prompt says so). */
  readonly variables: readonly string[];
  /** May be omitted; the template only uses them inside `{{#if name}}`. */
  readonly optional: readonly string[];
  /**
   * Variables that carry forge or model text, with where it comes from: renderPrompt fences each
   * as data (untrusted.ts), whatever the template (or a user's override) does with it.
   */
  readonly untrusted?: Readonly<Record<string, string>>;
}

const AUTHOR = "the pull request's author";
/** The PR's changes to the OpenCode configuration otto removed from an untrusted checkout (src/pr-review/untrusted-config.ts). */
const CONFIG_DIFF = "the pull request's author (its changes to OpenCode configuration files, removed from this checkout before the review)";

/**
 * The variables each prompt takes, for the type checker. The prompt files' frontmatter says the
 * same thing for people editing them, and is what renderPrompt checks at run time; a unit test
 * keeps the two identical.
 */
export const PROMPT_CONTRACTS = {
  requirements: {
    variables: ["request"],
    optional: ["requirements_md", "questions_md", "existing_artifacts", "codebase_summary"],
  },
  research: {
    variables: ["requirements_md"],
    optional: ["existing_research_md", "design_md", "tasks_md", "questions_md", "codebase_summary"],
  },
  design: {
    variables: ["requirements_md", "research_md"],
    optional: ["existing_design_md", "tasks_md", "questions_md", "codebase_summary"],
  },
  tasks: {
    variables: ["requirements_md", "research_md", "design_md"],
    optional: ["existing_tasks_md", "task_request", "questions_md", "codebase_summary"],
  },
  review: {
    variables: ["artifact_name", "artifact", "context"],
    optional: ["questions_md", "previous_review"],
  },
  "task-briefing": {
    variables: [
      "task_id",
      "task_title",
      "task_description",
      "task_files",
      "task_depends_on",
      "tasks_md",
      "requirements_md",
      "research_md",
      "design_md",
    ],
    optional: ["questions_md", "phase_summaries", "codebase_summary", "spec_dir"],
  },
  "phase-review": {
    variables: ["phase_number", "tasks_md", "requirements_md", "design_md"],
    optional: ["research_md", "execution_summaries", "questions_md", "codebase_summary"],
  },
  "external-assumptions": {
    variables: ["phase_number"],
    optional: ["requirements_md", "research_md", "design_md", "tasks_md", "check_commands", "codebase_summary"],
  },
  "domain-hardening": {
    variables: ["phase_number"],
    optional: ["requirements_md", "design_md", "tasks_md", "check_commands", "codebase_summary"],
  },
  "documentation-alignment": {
    variables: ["requirements_md", "design_md"],
    optional: ["tasks_md", "base_ref", "critique", "codebase_summary"],
  },
  "question-harvest": {
    variables: ["execution_logs"],
    optional: ["phase_number", "questions_md", "requirements_md", "design_md"],
  },
  "question-resolve": {
    variables: ["question"],
    optional: [
      "question_context",
      "requirements_md",
      "research_md",
      "design_md",
      "tasks_md",
      "questions_md",
      "codebase_summary",
    ],
  },
  "pr-review": {
    variables: ["pr_title", "pr_description", "target_branch"],
    optional: ["pr_url", "existing_comments", "codebase_summary", "focus", "opencode_config_diff"],
    untrusted: { pr_title: AUTHOR, pr_description: AUTHOR, existing_comments: "the PR's commenters", opencode_config_diff: CONFIG_DIFF },
  },
  "pr-comment-respond": {
    variables: [
      "pr_title",
      "pr_description",
      "comment_author",
      "comment_body",
      "comment_file",
      "comment_line",
      "comment_thread",
      "code_context",
    ],
    optional: ["target_branch", "check_commands", "codebase_summary"],
    untrusted: {
      pr_title: AUTHOR,
      pr_description: AUTHOR,
      comment_author: "the forge (the comment author's name)",
      comment_body: "the reviewer who wrote the comment",
      comment_file: "the forge (the commented file's path)",
      comment_thread: "the PR's commenters",
      code_context: "the PR's branch (its code)",
    },
  },
  refine: {
    variables: ["artifact_name", "artifact", "critique", "context"],
    optional: ["questions_md"],
  },
  "json-retry": {
    variables: ["validation_error", "expected_shape"],
    optional: [],
  },
  "model-check": {
    variables: ["role", "model"],
    optional: [],
  },
  "document-retry": {
    variables: ["artifact_name", "problems"],
    optional: [],
  },
  "spec-run": {
    variables: ["request", "spec_dir", "spec_files"],
    optional: ["codebase_summary"],
  },
  "phase-fix": {
    variables: ["phase_number", "review_report"],
    optional: ["requirements_md", "design_md", "tasks_md", "check_commands", "codebase_summary"],
  },
  "question-validate": {
    variables: ["question", "proposed_answer"],
    optional: [
      "evidence",
      "question_context",
      "requirements_md",
      "research_md",
      "design_md",
      "questions_md",
      "codebase_summary",
    ],
  },
  "pr-failure-analysis": {
    variables: ["pr_title", "failed_checks", "log_files"],
    optional: ["pr_description", "target_branch", "screening"],
    untrusted: {
      pr_title: AUTHOR,
      pr_description: AUTHOR,
      failed_checks: "the CI system (check names and messages)",
      screening: "otto's checks of the failure (check names and commands from the CI system and the PR)",
    },
  },
  "pr-fix": {
    variables: ["pr_title", "failure_summary"],
    optional: ["pr_description", "target_branch", "previous_attempts", "check_commands", "codebase_summary"],
    untrusted: {
      pr_title: AUTHOR,
      pr_description: AUTHOR,
      failure_summary: "a model's reading of the CI logs",
      previous_attempts: "earlier fix sessions (model-written)",
    },
  },
  "pr-fix-review": {
    variables: ["pr_title", "failure_summary", "fix_diff"],
    optional: ["pr_description", "check_commands", "flagged_changes"],
    untrusted: {
      pr_title: AUTHOR,
      pr_description: AUTHOR,
      failure_summary: "a model's reading of the CI logs",
      fix_diff: "the fix session's changes (model-written)",
      flagged_changes: "otto's list of flagged changes (the paths are the fix session's)",
    },
  },
  "pr-description": {
    variables: ["branch", "base", "commits", "diff"],
    optional: ["diffstat"],
    untrusted: { commits: "the branch's commit messages", diff: "the branch's changes" },
  },
  "pr-rebase-conflicts": {
    variables: ["branch", "conflicted_files"],
    optional: ["pr_title", "change_summary"],
    untrusted: { pr_title: AUTHOR, change_summary: "the session that made otto's change (model-written)" },
  },
  "execute-task": {
    variables: ["task_id", "task_title", "task_description", "task_files", "spec_dir", "spec_files"],
    optional: [
      "brief",
      "requirements_md",
      "research_md",
      "design_md",
      "questions_md",
      "phase_summaries",
      "parallel_tasks",
      "previous_attempt",
      "check_commands",
      "codebase_summary",
    ],
  },
  "build-start": {
    variables: ["target", "tasks_file", "tasks_format", "doc_dir", "progress", "next_task"],
    optional: ["verify_commands"],
  },
  "build-continue": {
    variables: ["progress", "next_task", "tasks_file"],
    optional: ["reminder"],
  },
  "build-fix": {
    variables: ["failures", "tasks_file"],
    optional: [],
  },
  "build-verify": {
    variables: ["tasks_file"],
    optional: ["verify_commands", "pre_existing"],
  },
  "crew-agent": {
    variables: ["name", "task", "directory"],
    optional: ["crew", "branch"],
  },
  "crew-wake": {
    variables: ["messages", "state"],
    optional: [],
  },
  "crew-deliver": {
    variables: ["name", "messages"],
    optional: [],
  },
  "crew-compaction": {
    variables: ["crew"],
    optional: ["unread", "specs"],
  },
  "pr-loop-reviewer": {
    variables: ["pr_title", "pr_description", "target_branch", "reviewer", "round"],
    optional: ["pr_url", "changed_files", "opencode_config_diff"],
    untrusted: { pr_title: AUTHOR, pr_description: AUTHOR, opencode_config_diff: CONFIG_DIFF },
  },
  "pr-loop-comments": {
    variables: ["pr_title", "threads", "review_state"],
    optional: ["pr_url"],
    untrusted: { pr_title: AUTHOR, threads: "the PR's reviewers", review_state: "the forge's reviews" },
  },
  "pr-loop-fix": {
    variables: ["pr_title", "target_branch", "round", "fix_payload"],
    optional: ["pr_description", "check_commands"],
    untrusted: { pr_title: AUTHOR, pr_description: AUTHOR, fix_payload: "the reviewer models' findings" },
  },
  "rules-learn-group": {
    variables: ["signals", "max_rules"],
    optional: ["existing_rules"],
    untrusted: {
      signals: "the repository's pull requests (reviewers' comments, otto's answers and review comments)",
      existing_rules: "the repository's .otto/rules.md",
    },
  },
  "rules-learn-check": {
    variables: ["proposals"],
    optional: [],
    untrusted: { proposals: "another model's proposals and the pull request comments they cite" },
  },
} as const satisfies Record<PromptName, Contract>;

type ContractOf<N extends PromptName> = (typeof PROMPT_CONTRACTS)[N];

/**
 * The variables one prompt takes: required names as required keys, optional names as optional
 * keys (`undefined` counts as omitted). Distributes over a union of names.
 */
export type PromptVars<N extends PromptName> = N extends PromptName
  ? { [K in ContractOf<N>["variables"][number]]: PromptValue } & {
      [K in ContractOf<N>["optional"][number]]?: PromptValue | undefined;
    }
  : never;
