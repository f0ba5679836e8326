import { cap } from "./signal.ts";

/** A rule is a sentence or a few: longer text after `/otto remember` is cut here. */
const MAX_REMEMBER = 500;

const REMEMBER = /^[ \t]*\/otto[ \t]+remember[ \t]+(\S.*)$/gim;

/**
 * The rules a comment asks otto to remember: each line `/otto remember <rule>` (at a line's start,
 * so a quoted or inline mention does not count). Plain text, capped.
 */
export function rememberedRules(body: string): string[] {
  return [...body.matchAll(REMEMBER)].map((m) => cap(m[1] ?? "", MAX_REMEMBER)).filter((rule) => rule.length > 0);
}
