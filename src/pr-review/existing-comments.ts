import type { PrComment } from "../pr/index.ts";

const MAX_COMMENTS = 40;
const MAX_CHARS = 300;

/**
 * The PR's open comments for the prompt's `existing_comments` (pure), so the reviewer does not
 * repeat what is already said, otto's earlier reviews included. Newest last; undefined when none.
 */
export function renderExistingComments(comments: readonly PrComment[]): string | undefined {
  const open = comments.filter((c) => !c.resolved).slice(-MAX_COMMENTS);
  if (open.length === 0) return undefined;
  return open
    .map((c) => {
      const where = c.path ? `${c.path}${c.line ? `:${c.line}` : ""}` : "conversation";
      const body = c.body
        .replace(/<!--[\s\S]*?-->/g, "")
        .replace(/\s+/g, " ")
        .trim();
      return `- ${where} (${c.author}): ${body.length > MAX_CHARS ? `${body.slice(0, MAX_CHARS - 1)}…` : body}`;
    })
    .join("\n");
}
