/**
 * Otto's stable text where a provider's prompt cache can read it (docs/cost.md, "Requests shaped
 * for a prompt cache"). OpenCode joins the agent's prompt, its environment block (working
 * directory, date) and the prompt's `system` into one system message, and marks only the first two
 * system messages and the last two others for caching (Anthropic reads an entry only where one was
 * written at a marker). A child session sends the stable head of otto's prompt (its rules and
 * output contract, the same bytes for every session of a kind) as `system`; the
 * `experimental.chat.system.transform` hook then splits the system message of every otto session,
 * and of no other, into the agent's prompt, the stable head, and the rest (a session without a
 * head: the agent's prompt and the rest). The first two are the parts OpenCode marks: the prefix up
 * to the agent's prompt is read by every later session of the agent, the one up to the stable head
 * by every later session of the kind, wherever its working tree or date. One layout for all:
 * a session split another way would write entries no other session reads.
 *
 * The environment block after them is the same for every session in one tree, but a third system
 * part is never marked, and putting it in the second would cost sessions in other trees the head.
 * OpenCode also marks a request's last two other messages, so the
 * `experimental.chat.messages.transform` hook sends an otto session's first message as two: its
 * first paragraph (the template's words before its first input: the same for every session of
 * the kind), then the rest. The first request marks both, so a later session of the kind in the
 * same tree reads up to the end of that paragraph, the environment block included (on the models
 * OpenCode marks: marksMessages).
 */

/** What one of otto's sessions sent as `system`, and of it the stable head. */
interface Sent {
  agent: string;
  stable: string;
  system: string;
}

/**
 * The system parts for one request: `[agentPrompt, stable, rest]`, or `[agentPrompt, rest]` for a
 * session without a stable head, or undefined (leave the request as it is) unless the system
 * message is exactly what OpenCode builds for this session: the agent's prompt first, the `system`
 * otto sent last. The agent's prompt always stands alone, so the first part (the one OpenCode marks
 * first) is the same bytes for every otto session of the agent, whichever its prompt or its tree.
 */
export function splitSystem(system: readonly string[], agentPrompt: string | undefined, sent: Omit<Sent, "agent">): string[] | undefined {
  const [whole, ...others] = system;
  if (whole === undefined || agentPrompt === undefined || !sent.system.startsWith(sent.stable)) return undefined;
  if (!whole.startsWith(`${agentPrompt}\n`) || (sent.system !== "" && !whole.endsWith(`\n${sent.system}`))) return undefined;
  const middle = whole.slice(agentPrompt.length + 1, whole.length - (sent.system ? sent.system.length + 1 : 0));
  const varying = sent.system.slice(sent.stable.length).trim();
  const rest = [middle, varying].filter((part) => part.length > 0).join("\n");
  const parts = [agentPrompt, ...(sent.stable ? [sent.stable] : []), ...(rest ? [rest] : [])];
  // One part alone is what OpenCode built already: nothing to split.
  return parts.length > 1 ? [...parts, ...others] : undefined;
}

/** A message as the messages hook gives it: only the fields otto reads. */
export interface HookMessage {
  info: { role: string; sessionID?: string; model?: { providerID: string; modelID: string } };
  parts: Array<{ type: string; text?: string }>;
}

/**
 * Whether OpenCode marks the model's requests for caching (its applyCaching: Anthropic's provider
 * and models named like Claude's, as far as a message tells). Other providers get the first
 * message whole: they gain nothing from the split, and some want user and assistant turns to alternate.
 */
export function marksMessages(model: { providerID: string; modelID: string } | undefined): boolean {
  if (!model) return false;
  return [model.providerID, model.modelID].some((name) => /anthropic|claude/i.test(name));
}

/**
 * An otto session's messages with its first message sent as two (the module's header): a copy of
 * it holding only its first paragraph, then the message with the rest. Changes the list in place;
 * a first message without a text part of two paragraphs is left as it is.
 */
export function splitFirstMessage(messages: HookMessage[]): void {
  const at = messages.findIndex((m) => m.info.role === "user");
  const first = messages[at];
  const index = first?.parts.findIndex((p) => p.type === "text") ?? -1;
  const part = first?.parts[index];
  if (!first || !part || typeof part.text !== "string") return;
  const cut = part.text.indexOf("\n\n");
  const opening = part.text.slice(0, cut).trimEnd();
  const rest = part.text.slice(cut + 2).trimStart();
  if (cut < 0 || opening === "" || rest === "") return;
  const parts = [...first.parts];
  parts[index] = { ...part, text: rest };
  messages.splice(at, 1, { ...first, parts: [{ ...part, text: opening }] }, { ...first, parts });
}

/** The sessions whose system message otto splits, and the prompts of otto's agents. */
export class StableSystems {
  readonly #sessions = new Map<string, Sent>();
  readonly #agents = new Map<string, string>();

  /** From the `config` hook, after otto registered its agents: the prompt OpenCode will use for each. */
  noteAgents(agents: Record<string, unknown> | undefined, own: readonly string[]): void {
    for (const name of own) {
      const agent = agents?.[name] as { prompt?: unknown } | undefined;
      if (typeof agent?.prompt === "string") this.#agents.set(name, agent.prompt);
      else this.#agents.delete(name);
    }
  }

  note(sessionID: string, sent: Sent): void {
    this.#sessions.set(sessionID, sent);
  }

  forget(sessionID: string): void {
    this.#sessions.delete(sessionID);
  }

  /** The `experimental.chat.messages.transform` hook: touches only otto's noted sessions. */
  messages(messages: HookMessage[]): void {
    const first = messages.find((m) => m.info.role === "user");
    const sessionID = first?.info.sessionID;
    if (sessionID !== undefined && this.#sessions.has(sessionID) && marksMessages(first?.info.model)) splitFirstMessage(messages);
  }

  /** The `experimental.chat.system.transform` hook: touches only otto's noted sessions. */
  transform(sessionID: string | undefined, system: string[]): void {
    const sent = sessionID === undefined ? undefined : this.#sessions.get(sessionID);
    if (!sent) return;
    const split = splitSystem(system, this.#agents.get(sent.agent), sent);
    if (split) system.splice(0, system.length, ...split);
  }
}
