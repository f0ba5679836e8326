import { compilePrompt, type PromptOptions } from "./load-prompt.ts";
import { PROMPT_NAMES } from "./names.ts";

/**
 * A head shorter than this (about 200 tokens) is not worth a cache marker of its own: the prompt
 * stays whole in the user message (the short one-turn prompts, the follow-ups in a session).
 */
export const MIN_STABLE_HEAD = 800;

/**
 * The part of a template every rendering shares: its text up to the first `{{`, cut back to the
 * last line break, so the head ends where a line does.
 */
export function templateHead(body: string): string {
  const at = body.indexOf("{{");
  if (at < 0) return body;
  const cut = body.lastIndexOf("\n", at);
  return cut < 0 ? "" : body.slice(0, cut);
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
