import fs from "node:fs/promises";
import path from "node:path";
import { isInside } from "../../repo/index.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { stripMarkers } from "./reply-marker.ts";

/*
 * The pr-comment-respond prompt's variables: the comment, its thread, the code around the
 * commented line as it is in the PR's worktree now, and what the PR is for.
 */

/** Lines shown on each side of the commented line. */
const RADIUS = 15;
/** A thread is shown up to this many characters per comment. */
const MAX_THREAD_COMMENT = 2_000;

/** Numbered lines around `line` (1-based), the commented one marked with `>`. Pure. */
export function codeExcerpt(text: string, line: number, radius = RADIUS): string {
  const lines = text.split("\n");
  if (line < 1 || line > lines.length) return "";
  const from = Math.max(1, line - radius);
  const to = Math.min(lines.length, line + radius);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${n === line ? ">" : " "} ${String(n).padStart(width)} | ${lines[n - 1] ?? ""}`);
  return out.join("\n");
}

/** The excerpt from the worktree; "" when the file is gone, outside the worktree, or the line is past its end. */
export async function readCodeContext(dir: string, comment: PrComment): Promise<string> {
  if (!comment.path || !comment.line) return "";
  const file = path.resolve(dir, comment.path);
  if (!isInside(file, dir)) return "";
  try {
    const excerpt = codeExcerpt(await fs.readFile(file, "utf8"), comment.line);
    return excerpt ? `${comment.path}\n${excerpt}` : "";
  } catch {
    return "";
  }
}

/** The earlier comments of the thread, oldest first, otto's own marked as such. Pure. */
export function threadText(thread: readonly PrComment[], comment: PrComment): string {
  return thread
    .filter((c) => c.id !== comment.id && c.createdAt <= comment.createdAt)
    .map((c) => {
      const body = stripMarkers(c.body);
      const who = c.body.includes("<!-- otto") ? `${c.author} (otto, on your behalf)` : c.author;
      return `**${who}** at ${c.createdAt}:\n${body.length > MAX_THREAD_COMMENT ? `${body.slice(0, MAX_THREAD_COMMENT)}…` : body}`;
    })
    .join("\n\n");
}

export interface CommentPromptInput {
  pr: PrInfo;
  comment: PrComment;
  thread: readonly PrComment[];
  codeContext: string;
  checkCommands: readonly string[];
}

export function commentPromptVars(input: CommentPromptInput) {
  const { pr, comment } = input;
  return {
    pr_title: pr.title,
    pr_description: pr.description ?? "",
    target_branch: pr.targetBranch,
    comment_author: comment.author,
    comment_body: comment.body,
    comment_file: comment.path ?? "",
    comment_line: comment.line ? String(comment.line) : "",
    comment_thread: threadText(input.thread, comment),
    code_context: input.codeContext,
    ...(input.checkCommands.length > 0 ? { check_commands: input.checkCommands.join("\n") } : {}),
  };
}
