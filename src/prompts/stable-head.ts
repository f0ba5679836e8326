import { compilePrompt, type PromptOptions } from "./load-prompt.ts";
import { PROMPT_NAMES } from "./names.ts";

/**
 * A head shorter than this (about 250 tokens) stays in the user message. The system layout starts
 * the same either way (every otto session is split at its agent's prompt,
 * src/session/stable-system.ts); a session without a head has OpenCode's environment block as its
 * second, marked part, which every headless session of the agent in the same tree shares: for a
 * short head, which a kind run once per stage shares with nobody, that is worth more.
 */
export const MIN_STABLE_HEAD = 1024;

/**
 * The part of a template every rendering shares: its text up to the first `{{`, cut back to the
 * last paragraph that ends before it, and before a heading whose section holds that `{{`: the
 * message after the head then starts with a whole paragraph (the scripted model and the user's eyes
 * read `head + "\n\n" + rest` as the prompt it was).
 */
export function templateHead(body: string): string {
  const at = body.indexOf("{{");
  if (at < 0) return body;
  const end = body.lastIndexOf("\n\n", at);
  if (end < 0) return "";
  let head = body.slice(0, end);
  const last = head.lastIndexOf("\n\n");
  if (head.slice(last < 0 ? 0 : last + 2).startsWith("#")) head = last < 0 ? "" : head.slice(0, last);
  return head.trimEnd();
}

/**
 * The stable head of a rendered prompt: the longest template head (overrides included) it begins
 * with, when it is long enough to be worth a marker and something follows it; else undefined.
 */
export function stableHead(text: string, options: PromptOptions = {}): string | undefined {
  let best = "";
  for (const name of PROMPT_NAMES) {
    let head: string;
    try {
      head = templateHead(compilePrompt(name, options).body);
    } catch {
      continue; // a broken override fails where it is rendered, with its own message
    }
    if (head.length > best.length && text.startsWith(head)) best = head;
  }
  return best.length >= MIN_STABLE_HEAD && text.slice(best.length).trim().length > 0 ? best : undefined;
}
