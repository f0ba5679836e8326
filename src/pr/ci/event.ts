import type { ProviderName } from "../types.ts";

/*
 * What one CI job was started for, as the readers (github-event.ts, azure-event.ts) make of the
 * platform's variables and payload: a failed pipeline on a PR, a comment on a PR, or nothing otto
 * acts on (with the reason, printed as the job's one line).
 */

/** The comment that started the job, in the ids getComments gives (GitHub `issue-N`/`review-N`, Azure DevOps `<thread>/<comment>`). */
export interface EventComment {
  /** Undefined for a GitHub review body, which is no comment of its own. */
  id?: string;
  author: string;
  /** The forge's stable id of the author (Azure DevOps identity id). */
  authorId?: string;
  authorLogin?: string;
  body: string;
  /** GitHub's author_association. */
  association?: string;
  createdAt: string;
}

export type CiEvent =
  /** A pipeline failed: `number` when the event names the PR, else `branch` finds the open PR. */
  | { kind: "failure"; provider: ProviderName; repo: string; number?: number; branch?: string; headSha?: string; source: string }
  | { kind: "comment"; provider: ProviderName; repo: string; number: number; comment: EventComment; source: string }
  /**
   * A comment known only by its id (`<thread>/<comment>`), from a payload nobody signed (Azure's
   * incoming webhook): the job reads the comment back from the forge, author and text included.
   */
  | { kind: "comment_ref"; provider: ProviderName; repo: string; number: number; commentId: string; source: string }
  | { kind: "none"; reason: string };

/** What a comment asks of otto: its first line `/otto fix` or `/otto answer`. */
export type CommentCommand = "fix" | "answer";

export function commentCommand(body: string): CommentCommand | undefined {
  const first = body.trimStart().split(/\r?\n/, 1)[0]?.trim().toLowerCase() ?? "";
  const match = /^\/otto\s+(fix|answer)$/.exec(first.replace(/\s+/g, " "));
  return match ? (match[1] as CommentCommand) : undefined;
}

export const nothing = (reason: string): CiEvent => ({ kind: "none", reason });
