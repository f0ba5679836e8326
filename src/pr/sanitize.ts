import { redact } from "../core/index.ts";

/*
 * Everything otto posts on a forge (replies, reviews, reports, giving-up comments) passes here:
 * model output can quote secrets it saw in logs or files, and whole diffs make comments unreadable
 * (and can carry secrets the patterns miss).
 */

/** A fenced or bare `diff --git` block, up to the closing fence or the next blank line after the hunks. */
const FENCED_DIFF = /```[a-z]*\n(?:(?!```)[\s\S])*?^diff --git [\s\S]*?```/gm;
const BARE_DIFF = /^diff --git [^\n]*\n(?:[^\n]+\n?)*/gm;

export const DIFF_PLACEHOLDER = "[diff omitted: see the commit]";

/** Redacts secrets (known token formats and `secrets`) and replaces `diff --git` blocks. */
export function sanitizeForPost(text: string, secrets: readonly string[] = []): string {
  const withoutDiffs = text.replace(FENCED_DIFF, DIFF_PLACEHOLDER).replace(BARE_DIFF, `${DIFF_PLACEHOLDER}\n`);
  return redact(withoutDiffs, secrets);
}
