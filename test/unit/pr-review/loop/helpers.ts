import { toFinding } from "../../../../src/pr-review/loop/findings.ts";
import type { Finding, Priority } from "../../../../src/pr-review/loop/schemas.ts";

/** A reviewer finding with its computed id. */
export function finding(
  priority: Priority,
  title: string,
  extra: { file?: string; line?: number | null; category?: string; reviewer?: string; description?: string } = {},
): Finding {
  return toFinding(
    {
      priority,
      category: extra.category ?? "quality",
      file: extra.file ?? "src/a.ts",
      line: extra.line === undefined ? 1 : extra.line,
      title,
      description: extra.description ?? `${title} is wrong.`,
      suggestion: "Fix it.",
    },
    extra.reviewer ?? "reviewer-1",
  );
}
