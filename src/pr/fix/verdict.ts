import { normalisePath } from "../../workspace/index.ts";

/*
 * The analysis session's classification, read by code from the summary's `## Verdict` section
 * (prompts/pr-failure-analysis.md): its first word decides between re-running the pipeline and
 * fixing the code.
 */

export type Verdict = "code" | "infrastructure" | "mixed" | "unclear";

const WORD = /^[\s>*_`-]*(code|infrastructure|infra|mixed|unclear)\b/i;

/** The verdict of a failure summary; undefined when the summary has none. */
export function parseVerdict(summary: string): Verdict | undefined {
  const lines = summary.split(/\r?\n/);
  const heading = lines.findIndex((l) => /^#{1,6}\s*verdict\b/i.test(l.trim()));
  if (heading >= 0) {
    for (const line of lines.slice(heading + 1)) {
      if (/^#{1,6}\s/.test(line.trim())) break;
      if (line.trim() === "") continue;
      return normalise(WORD.exec(line)?.[1]);
    }
  }
  // A model that forgot the heading but wrote "Verdict: infrastructure".
  const inline = /\bverdict\W{0,4}\s*(code|infrastructure|infra|mixed|unclear)\b/i.exec(summary)?.[1];
  return normalise(inline);
}

function normalise(word: string | undefined): Verdict | undefined {
  if (!word) return undefined;
  const lower = word.toLowerCase();
  return lower === "infra" ? "infrastructure" : (lower as Verdict);
}

/**
 * Only a clear infrastructure verdict re-runs the pipeline: mixed, unclear or a missing verdict
 * go to the fix session, which can still answer `TASK_FAILED: infrastructure: …`.
 */
export function isInfrastructure(verdict: Verdict | undefined): boolean {
  return verdict === "infrastructure";
}

/**
 * The repository files the analysis names under `## Cause files` (one list item each; a backticked
 * path, `path:line` and `./path` are read as the path). A fix may weaken the checks in these files
 * only (src/workspace/detect-weakened-checks.ts): the analysis said the file itself is at fault.
 */
export function parseCauseFiles(summary: string): string[] {
  const lines = summary.split(/\r?\n/);
  const heading = lines.findIndex((l) => /^#{1,6}\s*cause\s+files\b/i.test(l.trim()));
  if (heading < 0) return [];
  const files: string[] = [];
  for (const line of lines.slice(heading + 1)) {
    if (/^#{1,6}\s/.test(line.trim())) break;
    const item = /^\s*[-*+]\s+(.+)$/.exec(line)?.[1];
    if (!item) continue;
    const quoted = /`([^`]+)`/.exec(item)?.[1];
    const file = normalisePath(quoted ?? item.split(/\s+/)[0] ?? "");
    if (file && !/^\(?none\)?$/i.test(file) && !files.includes(file)) files.push(file);
  }
  return files;
}

/** The fix session's `Fix summary: …` line (a commit subject), if any. */
export function fixSummary(reply: string): string | undefined {
  const matches = [...reply.matchAll(/^\s*\**Fix summary:?\**:?\s*(.+)$/gim)];
  const last = matches[matches.length - 1]?.[1]?.trim().replace(/^`|`$/g, "");
  return last ? last.slice(0, 72) : undefined;
}
