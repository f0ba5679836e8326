import { HUMAN, ORCHESTRATOR } from "./schema.ts";

export interface Mentions {
  /** Known addresses in order of first appearance: agent names, "otto", "human". */
  mentions: string[];
  /** `@words` that name nobody in the crew (typos, agents not spawned yet). */
  unknown: string[];
}

// An @ at the start or after a character that cannot be part of an e-mail's local part, so
// "me@example.com" is not a mention; names are lower-case words with digits and hyphens.
const MENTION = /(?<![\w.@-])@([A-Za-z][A-Za-z0-9-]*)/g;

/** The `@name` mentions of a message, resolved against the crew's names. Pure. */
export function parseMentions(text: string, names: readonly string[]): Mentions {
  const known = new Set([...names, ORCHESTRATOR, HUMAN]);
  const mentions: string[] = [];
  const unknown: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const name = (match[1] ?? "").toLowerCase().replace(/-+$/, "");
    const list = known.has(name) ? mentions : unknown;
    if (!list.includes(name)) list.push(name);
  }
  return { mentions, unknown };
}
