/*
 * Addresses in crew messages: `@agent` (this crew), `@branch:agent` (the crew of another branch of
 * this project), `@project:branch:agent` (another project's). `:` separates because branch names
 * contain `/`. Pure.
 */

export interface Address {
  /** As written, without the `@`. */
  text: string;
  project?: string;
  branch?: string;
  agent: string;
}

// An @ at the start or after a character that cannot be part of an e-mail's local part, so
// "me@example.com" is not a mention. Up to three `:`-separated parts; a branch may hold / . _ -.
const ADDRESS = /(?<![\w.@-])@([A-Za-z0-9][\w./-]*(?::[\w./-]+){0,2})/g;

/** Every `@address` of a text, in order, each once. Trailing punctuation (`@bob.`, `@a:b?`) is not part of it. */
export function parseAddresses(text: string): Address[] {
  const out: Address[] = [];
  for (const match of text.matchAll(ADDRESS)) {
    const raw = (match[1] ?? "").replace(/[./-]+$/, "");
    const parts = raw.split(":");
    const agent = (parts.at(-1) ?? "").toLowerCase();
    if (!agent || parts.some((p) => !p)) continue;
    const address: Address =
      parts.length === 3
        ? { text: raw, project: parts[0], branch: parts[1], agent }
        : parts.length === 2
          ? { text: raw, branch: parts[0], agent }
          : { text: agent, agent };
    if (!out.some((a) => a.text === address.text)) out.push(address);
  }
  return out;
}

export const isRemote = (address: Address): boolean => address.branch !== undefined;

/** `project:branch:agent`, how another crew names a sender. */
export function fullAddress(project: string, branch: string, agent: string): string {
  return `${project}:${branch}:${agent}`;
}
