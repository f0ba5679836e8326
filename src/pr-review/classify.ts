import type { CommentableLines } from "./diff-lines.ts";
import type { ReviewComment } from "./envelope.ts";

/** A model's comment, numbered for the approval list, with where it can be posted. */
export interface DraftComment extends ReviewComment {
  /** 1-based, as shown in the table and typed in `/pr-review post 1,3`. */
  id: number;
  /** True when `line` is inside a hunk of `file`: posted inline; otherwise it goes into the review's summary. */
  inDiff: boolean;
}

/** The diff's spelling of a path the model wrote as `./x`, `/x`, `a/x` or `b/x`. */
export function diffPath(file: string, lines: CommentableLines): string {
  if (lines.has(file)) return file;
  const trimmed = file.trim().replace(/^\.\//, "").replace(/^\/+/, "");
  if (lines.has(trimmed)) return trimmed;
  const unprefixed = trimmed.replace(/^[ab]\//, "");
  return lines.has(unprefixed) ? unprefixed : trimmed;
}

/** Numbers the comments and checks each against the diff; none is dropped. */
export function classifyComments(comments: readonly ReviewComment[], lines: CommentableLines): DraftComment[] {
  return comments.map((comment, index) => {
    const file = diffPath(comment.file, lines);
    return { ...comment, file, id: index + 1, inDiff: lines.get(file)?.has(comment.line) === true };
  });
}
