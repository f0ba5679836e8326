import matter from "gray-matter";
import { z } from "zod";
import { OttoError, matterOptions, formatZodIssues } from "../../core/index.ts";
import { UsageRecord } from "../../cost/index.ts";
import { Check, ProviderName } from "../types.ts";

/*
 * One tracked PR as markdown with YAML frontmatter. Parsing
 * and rendering are pure; src/pr/store/store.ts does the I/O. The frontmatter is the machine
 * state; the body is for people: a generated "Current State", the fix and comment histories the
 * PR flows append to (kept verbatim), and a log of what the watcher saw.
 */

export const PrStatus = z.enum(["watching", "fixing", "green", "failed", "merged", "closed", "abandoned"]);
export type PrStatus = z.infer<typeof PrStatus>;

/** Statuses the watcher stops polling at; the document stays. */
export const FINAL_STATUSES: readonly PrStatus[] = ["merged", "closed", "abandoned"];

/** YAML turns an unquoted ISO time written by hand into a Date; keep times as ISO strings. */
const Timestamp = z.preprocess((v) => (v instanceof Date ? v.toISOString() : v), z.string());

/** What otto's model calls for this PR cost (src/pr/context/spend.ts, daily-caps.ts); absent in documents written before it was kept. */
export const PrSpend = z.object({
  /** The UTC day (YYYY-MM-DD) `today` is of. */
  day: z.string(),
  today: UsageRecord,
  total: UsageRecord,
  /** The newest fix attempts' spend, by attempt number (a fix's analysis counts in the totals only). */
  fix_attempts: z.array(z.object({ attempt: z.number().int().min(0), at: Timestamp, usage: UsageRecord })).default([]),
  /** The newest answered comments' spend, by comment id. */
  comments: z.array(z.object({ id: z.coerce.string(), at: Timestamp, usage: UsageRecord })).default([]),
});
export type PrSpend = z.infer<typeof PrSpend>;

export const PrFrontmatter = z.object({
  id: z.coerce.string(),
  provider: ProviderName,
  repo: z.string(),
  branch: z.string().default(""),
  target: z.string().default(""),
  status: PrStatus,
  url: z.string(),
  title: z.string().default(""),
  created: Timestamp,
  last_checked: Timestamp.optional(),
  /** The PR's version in its repository's PR list when it was last read in full (src/pr/watch/poll-mode.ts). */
  seen_version: z.string().optional(),
  /** When the PR was last read in full: PR, pipeline and comments. */
  full_checked: Timestamp.optional(),
  head_sha: z.string().optional(),
  pipeline: z.enum(["pending", "success", "failure", "none"]).optional(),
  checks: z.array(Check).default([]),
  fix_attempts: z.number().int().min(0).default(0),
  max_fix_attempts: z.number().int().min(0).default(5),
  /** Head SHAs whose failed jobs the fix flow re-ran (infrastructure failures): one re-run per SHA. */
  rerun_shas: z.array(z.string()).optional(),
  /** The commit the fix flow last pushed. */
  fix_sha: z.string().optional(),
  /** The PR's head that fix was built on: while the forge still shows it failing, no new attempt starts. */
  fix_base_sha: z.string().optional(),
  /** When the running fix started (status fixing); an old one is a fix that crashed. */
  fix_started: Timestamp.optional(),
  /** When the fix flow gave up (max_fix_attempts reached); the giving-up comment is posted once. */
  gave_up: Timestamp.optional(),
  /** Head SHA the fix flow handed to a human (fork, repeated infrastructure failure): notified once per SHA. */
  human_sha: z.string().optional(),
  /** Head SHA the fix or comment flow held for a person because it changes OpenCode configuration (src/pr/context/config-hold.ts): notified once per SHA. */
  config_hold_sha: z.string().optional(),
  /** Head SHA a person let otto work on by running /otto-pr fix by hand although it changes OpenCode configuration. */
  config_ok_sha: z.string().optional(),
  /** Comments the comment flow handled: the most recent ids (store/seen.ts bounds them). */
  seen_comment_ids: z.array(z.coerce.string()).default([]),
  /** Every comment created at or before this time counts as seen: the mark of the ids dropped from seen_comment_ids. */
  seen_before: Timestamp.optional(),
  /** Comments not yet handled by the comment flow (its ids are not in seen_comment_ids). */
  unseen_comments: z.number().int().min(0).default(0),
  /** Failed answers by comment id; after two the comment is recorded as seen and a human is notified. */
  comment_failures: z.record(z.string(), z.number().int().min(0)).default({}),
  /** Provider workflow steps done once per PR (`auto_complete`, `work_item`; Azure DevOps). */
  workflow_done: z.array(z.string()).default([]),
  /** Head SHA the success comment was posted for: one per SHA. */
  green_sha: z.string().optional(),
  /** Consecutive failed polls, and when the next one may run. */
  errors: z.number().int().min(0).default(0),
  last_error: z.string().optional(),
  retry_at: Timestamp.optional(),
  /** Model spend on this PR: today's, all-time, per fix attempt and per answered comment. */
  spend: PrSpend.optional(),
  /**
   * The UTC day the watcher held this PR at a daily cap (limits.pr_usd_per_day or
   * watcher_usd_per_day): noted and notified once that day; cleared when work resumes.
   */
  cap_hold: z.string().optional(),
  /**
   * The fix flow re-ran the failed jobs of this head to see whether they pass (pr.flakes.rerun):
   * a pass records each check's failure as a flake (src/pr/fix/flake-record.ts); cleared then, or when the head fails again.
   */
  flake_probe: z
    .object({
      sha: z.string(),
      at: Timestamp,
      checks: z
        .array(
          z.object({
            name: z.string(),
            fingerprint: z.string().optional(),
            lines: z.array(z.string()).default([]),
            url: z.string().optional(),
          }),
        )
        .default([]),
    })
    .optional(),
  /**
   * The head's failure is the default branch's too (main is red): no fix while it is; the watcher
   * hands the failure back at each full poll, and the PR is fixed normally once main is green.
   */
  inherited: z
    .object({
      sha: z.string(),
      checks: z.array(z.object({ name: z.string(), fingerprint: z.string(), since: z.string(), base_sha: z.string() })).default([]),
    })
    .optional(),
  /** Provider ids the backend needs again (repository and project ids). */
  meta: z.record(z.string(), z.string()).default({}),
});
export type PrFrontmatter = z.infer<typeof PrFrontmatter>;

export interface PrDocument {
  /** `<provider>-<…>`, the file name without `.md`. */
  key: string;
  data: PrFrontmatter;
  /** `## Fix History`, `## Comment History` and any section a person added, verbatim, in order. */
  sections: Array<{ title: string; body: string }>;
  /** `## Log` lines without the leading "- ", oldest first. */
  log: string[];
}

const GENERATED = new Set(["Current State", "Log"]);
/** The log keeps its newest lines; older ones are dropped. */
export const MAX_LOG_LINES = 200;

export function parsePrDocument(key: string, text: string): PrDocument {
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, matterOptions());
  } catch (error) {
    throw new OttoError(
      "pr_document",
      `PR document ${key} has broken frontmatter: ${error instanceof Error ? error.message : String(error)}`,
      `Fix or delete ${key}.md.`,
    );
  }
  const data = PrFrontmatter.safeParse(parsed.data);
  if (!data.success) {
    throw new OttoError(
      "pr_document",
      `PR document ${key}: ${formatZodIssues(data.error.issues, { inline: true })}.`,
      `Fix or delete ${key}.md.`,
    );
  }
  const sections: PrDocument["sections"] = [];
  let log: string[] = [];
  for (const chunk of parsed.content.split(/^## /m).slice(1)) {
    const newline = chunk.indexOf("\n");
    const title = (newline < 0 ? chunk : chunk.slice(0, newline)).trim();
    const body = newline < 0 ? "" : chunk.slice(newline + 1).trim();
    if (title === "Log")
      log = body
        .split("\n")
        .filter((l) => l.startsWith("- "))
        .map((l) => l.slice(2));
    else if (!GENERATED.has(title)) sections.push({ title, body });
  }
  return { key, data: data.data, sections, log };
}

function currentState(data: PrFrontmatter): string[] {
  const sha = data.head_sha ? ` on \`${data.head_sha.slice(0, 7)}\`` : "";
  const when = data.last_checked ? ` (checked ${data.last_checked})` : " (not checked yet)";
  const lines = [`Status **${data.status}**; pipeline ${data.pipeline ?? "unknown"}${sha}${when}.`];
  if (data.last_error)
    lines.push("", `Last error (${data.errors} in a row, next try ${data.retry_at ?? "next cycle"}): ${data.last_error}`);
  const failed = data.checks.filter((c) => c.state === "failure");
  if (failed.length > 0) {
    lines.push("", "### Failed Checks");
    for (const check of failed)
      lines.push(`- \`${check.name}\`${check.detail ? `: ${check.detail}` : ""}${check.url ? ` ([details](${check.url}))` : ""}`);
  }
  return lines;
}

export function renderPrDocument(doc: PrDocument): string {
  const body = [`# PR #${doc.data.id}: ${doc.data.title}`, "", "## Current State", "", ...currentState(doc.data)];
  for (const section of doc.sections) body.push("", `## ${section.title}`, "", section.body);
  body.push("", "## Log", "", ...doc.log.slice(-MAX_LOG_LINES).map((l) => `- ${l}`));
  // Keys in schema order (stable files, readable diffs), undefined ones dropped: YAML cannot write them.
  const source = doc.data as Record<string, unknown>;
  const data = Object.fromEntries(
    Object.keys(PrFrontmatter.shape)
      .filter((k) => source[k] !== undefined)
      .map((k) => [k, source[k]]),
  );
  return matter.stringify(`${body.join("\n")}\n`, data);
}

/** A log line, one line long, stamped with the time. */
export function logLine(time: string, text: string): string {
  return `${time} ${text.replace(/\s*\n\s*/g, " ")}`;
}
