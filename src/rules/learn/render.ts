import { cell } from "../../core/index.ts";
import type { LearnReport } from "./run-learn.ts";

/** The report of one learning run, as /otto-rules learn shows it. */
export function renderLearnReport(report: LearnReport, repo: string, since: string): string {
  const lines = [
    `Read ${report.prs} PR(s) of ${repo} updated in the last ${since}: ${report.signals} signal(s), ${report.fresh.length} new.`,
  ];
  if (report.fresh.length === 0) lines.push("Nothing new to learn from; no model was asked.");
  if (report.proposed.length > 0) {
    lines.push(
      "",
      "Proposed (pending until a person accepts them in .otto/rules.md):",
      "",
      "| id | scope | rule | from |",
      "|---|---|---|---|",
    );
    for (const rule of report.proposed)
      lines.push(
        `| ${rule.id} | ${cell(rule.scope.join(", "))} | ${cell(rule.text)} | ${cell(rule.sources.map((s) => s.url).join(" "))} |`,
      );
    lines.push("", "Accept one with /otto-rules accept <id>, reject it with /otto-rules reject <id>.");
  } else if (report.fresh.length > 0) lines.push("No rule proposed.");
  for (const r of report.retired) lines.push(`Retired ${r.id}: ${r.reason}`);
  if (report.dropped > 0) lines.push(`The check dropped ${report.dropped} proposal(s) its events did not support.`);
  if (report.problems.length > 0) lines.push("", "Not read:", ...report.problems.map((p) => `- ${p}`));
  return lines.join("\n");
}
