import { parseAddresses, type Address } from "./addresses.ts";
import { HUMAN, ORCHESTRATOR } from "./schema.ts";

export interface Mentions {
  /** Known addresses of this crew in order of first appearance: agent names, "otto", "human". */
  mentions: string[];
  /** `@words` that name nobody in the crew (typos, agents not spawned yet). */
  unknown: string[];
  /** Addresses in other crews (`@branch:agent`, `@project:branch:agent`), resolved by remote.ts. */
  remote: Address[];
}

/** The `@name` mentions of a message, resolved against the crew's names. Pure. */
export function parseMentions(text: string, names: readonly string[]): Mentions {
  const known = new Set([...names, ORCHESTRATOR, HUMAN]);
  const mentions: string[] = [];
  const unknown: string[] = [];
  const remote: Address[] = [];
  for (const address of parseAddresses(text)) {
    if (address.branch !== undefined) {
      remote.push(address);
      continue;
    }
    const list = known.has(address.agent) ? mentions : unknown;
    if (!list.includes(address.agent)) list.push(address.agent);
  }
  return { mentions, unknown, remote };
}
