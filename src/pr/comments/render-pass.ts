import { formatUsage, sumUsage } from "../../cost/index.ts";
import type { PrInfo } from "../types.ts";
import type { CommentPassReport, PassItem } from "./pass-types.ts";
import { cell } from "../../core/index.ts";

/** A comment pass as markdown, for /otto-pr comments. Pure. */
export function renderCommentPass(report: CommentPassReport, pr: PrInfo): string {
  const total = report.answered.length + report.recovered.length + report.failed.length;
  const spent = report.usage && report.usage.requests > 0 ? ` Spent ${formatUsage(report.usage)}.` : "";
  const head = `Comments on PR #${pr.number} (${report.key}): ${report.answered.length} answered, ${report.recovered.length} recorded from an earlier run, ${report.failed.length} failed, ${report.skipped.length} not for otto.${spent}`;
  if (report.busy)
    return `${head}\nThe PR's working tree is busy with ${report.busy}; the comments are answered once it is free (the watcher's next poll, or /otto-pr comments again).`;
  if (report.held && total === 0) return `${head}\n${report.held}`;
  if (total === 0) return `${head}\nNo new reviewer comments to answer.`;
  const shortCell = (text: string) => cell(text, 160);
  const row = (item: PassItem) =>
    `| ${item.comment.id} | ${shortCell(item.comment.author)} | ${item.comment.path ? shortCell(`${item.comment.path}${item.comment.line ? `:${item.comment.line}` : ""}`) : "conversation"} | ${item.decision ?? "—"} | ${shortCell(item.action)} | ${item.usage ? formatUsage(item.usage) : "—"} |`;
  const items = [...report.answered, ...report.recovered, ...report.failed];
  return [
    head,
    "",
    "| comment | author | where | decision | what otto did | spent |",
    "|---|---|---|---|---|---|",
    ...items.map(row),
    `| total | | | | | ${formatUsage(report.usage ?? sumUsage(items.flatMap((i) => (i.usage ? [i.usage] : []))))} |`,
    ...(report.held ? ["", report.held] : []),
    "",
    `The PR document's Comment History has the details: /otto-pr log ${report.key}`,
  ].join("\n");
}
