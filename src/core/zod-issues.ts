import type { z } from "zod";

/** A zod issue's path as code writes it: `items[0].id`, `(root)` for the top. */
export function issuePath(issue: z.core.$ZodIssue): string {
  if (issue.path.length === 0) return "(root)";
  return issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
    .join(".")
    .replace(/\.\[/g, "[");
}

/**
 * Zod issues for a person or a model: one line each, `- path: message`; `inline` puts them on
 * one line (`path: message; path: message`) for an error message that names its file first.
 */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[], options: { inline?: boolean } = {}): string {
  if (options.inline) return issues.map((issue) => `${issuePath(issue)}: ${issue.message}`).join("; ");
  return issues.map((issue) => `- ${issuePath(issue)}: ${issue.message}`).join("\n");
}
