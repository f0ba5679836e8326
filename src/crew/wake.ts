import { formatError, OTTO_AGENT, orchestratorAgent, errorText } from "../core/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import type { Crew } from "./context.ts";
import type { Delivery } from "./gate.ts";
import { failureNotice, needsHuman, onDeliver, summaryLine, unreadFor, wakeTargets } from "./policy.ts";
import { formatMessages } from "./render.ts";
import { ORCHESTRATOR, type CrewFile, type Message } from "./schema.ts";
import { meterAgent } from "./spend.ts";
import { readCrew, readStream, transact } from "./store.ts";

/*
 * Wake-ups: every new message goes through the policy (policy.ts), and each session it wakes gets
 * a prompt through its gate (gate.ts). What a prompt says is decided when it is delivered, from
 * the reader's cursor up to the message that caused it: two events give two prompts, and a
 * wake-up whose messages the reader has already seen (otto ran `messages`, `--wait` returned) is
 * dropped.
 */

/** Applies the wake-up policy to messages just posted. Never throws: the post has happened. */
export function dispatch(crew: Crew, posted: readonly Message[], state: CrewFile): void {
  for (const message of posted) {
    for (const target of wakeTargets(message, state)) {
      if (target.kind === "otto") wakeOrchestrator(crew, state, message.seq);
      else wakeAgent(crew, state, target.name, message.seq);
    }
    if (needsHuman(message)) {
      escalate(crew, state, message).catch((error: unknown) =>
        crew.log.log("warn", "crew: escalation failed", { error: formatError(error) }),
      );
    }
  }
}

function wakeOrchestrator(crew: Crew, state: CrewFile, trigger: number): void {
  const sessionID = state.orchestrator?.sessionID;
  if (!sessionID) return;
  crew.gates.enqueue(sessionID, { key: `otto:${trigger}`, order: trigger, deliver: () => deliverToOrchestrator(crew, sessionID, trigger) });
}

function wakeAgent(crew: Crew, state: CrewFile, name: string, trigger: number): void {
  const agent = state.agents.find((a) => a.name === name);
  if (!agent) return;
  crew.gates.enqueue(agent.sessionID, { key: `${name}:${trigger}`, order: trigger, deliver: () => deliverToAgent(crew, name, trigger) });
}

/*
 * Both deliveries look at the session just before prompting it: a person may have started a turn
 * there since the gate last heard of it, and a prompt sent then would be folded into that turn.
 */

async function deliverToOrchestrator(crew: Crew, sessionID: string, trigger: number): Promise<Delivery> {
  const { state, stream } = await snapshot(crew);
  const messages = unreadFor(ORCHESTRATOR, state, stream, trigger);
  if (messages.length === 0 || !state.orchestrator) return "nothing";
  if (state.orchestrator.sessionID !== sessionID) {
    // Another session took the crew over while this waited: it gets the wake-up, through its own gate.
    wakeOrchestrator(crew, state, trigger);
    return "nothing";
  }
  const { directory } = state.orchestrator;
  const text = renderPrompt("crew-wake", { messages: formatMessages(messages), state: summaryLine(state) }, { env: crew.env });
  const role = await crew.host.lastRole(sessionID, directory);
  if (await crew.host.isBusy(sessionID, directory)) return "busy";
  // A wake-up after a slash command (its own agent, offered one tool) goes to the otto agent.
  await crew.host.prompt(sessionID, directory, { agent: orchestratorAgent(role.agent) ?? OTTO_AGENT, model: role.model, text });
  // Read once delivered; the gate sends one prompt per session at a time, so nobody raced us here.
  await transact(
    crew.paths,
    crew.now,
    ({ crew: current }) => {
      current.cursors[ORCHESTRATOR] = Math.max(current.cursors[ORCHESTRATOR] ?? 0, trigger);
    },
    crew.secrets?.() ?? [],
  );
  return "sent";
}

async function deliverToAgent(crew: Crew, name: string, trigger: number): Promise<Delivery> {
  const seen = (await readCrew(crew.paths)).agents.find((a) => a.name === name);
  if (!seen) return "nothing";
  if (await crew.host.isBusy(seen.sessionID, seen.directory)) return "busy";
  // The state moves before the prompt: the turn it starts may end (session.idle) before prompt() returns.
  const claimed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, stream, now }) => {
      const agent = state.agents.find((a) => a.name === name);
      // An agent stopped at its budget takes no more turns: its messages stay in the stream.
      const messages = agent && agent.state !== "stopped" ? unreadFor(name, state, stream, trigger) : [];
      if (!agent || messages.length === 0) return undefined;
      state.cursors[name] = Math.max(state.cursors[name] ?? 0, trigger);
      Object.assign(agent, onDeliver(agent, messages, now));
      return { agent: { ...agent }, messages };
    },
    crew.secrets?.() ?? [],
  );
  const found = claimed.result;
  if (!found) return "nothing";
  const { agent, messages } = found;
  meterAgent(crew, agent);
  try {
    const text = renderPrompt("crew-deliver", { name, messages: formatMessages(messages) }, { env: crew.env });
    await crew.host.prompt(agent.sessionID, agent.directory, { agent: agent.agent, model: agent.model, text });
    return "sent";
  } catch (error) {
    await markUndeliverable(crew, name, error);
    throw error;
  }
}

/** A prompt OpenCode refused (session deleted, agent unknown): the agent has failed, and otto hears of it. */
export async function markUndeliverable(crew: Crew, name: string, error: unknown): Promise<void> {
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, post, now }) => {
      const agent = state.agents.find((a) => a.name === name);
      if (!agent) return;
      const reason = `could not prompt its session: ${errorText(error)}`;
      Object.assign(agent, { state: "failed", resume: undefined, error: reason, activeAt: now.toISOString() });
      post(failureNotice(name, reason));
    },
    crew.secrets?.() ?? [],
  );
  dispatch(crew, committed.posted, committed.crew);
}

/** `@human`, or a question for the human: a toast where the orchestrator runs, and the configured notification. */
async function escalate(crew: Crew, state: CrewFile, message: Message): Promise<void> {
  const title = `otto crew: @${message.from} needs a human`;
  const text = message.text.trim();
  const directory = state.orchestrator?.directory ?? crew.paths.root;
  try {
    await crew.host.toast(directory, title, text.length > 200 ? `${text.slice(0, 199)}…` : text);
  } catch (error) {
    crew.log.log("debug", "could not show the crew toast", { error: formatError(error) });
  }
  await crew.notify(crew.paths.root, {
    kind: "human_needed",
    title: `@${message.from} needs a human`,
    text,
    facts: { agent: message.from, message: `#${message.seq}`, crew: crew.paths.root },
  });
}

/** The crew and its stream, read without the lock (for listings; writes always go through transact). */
export async function snapshot(crew: Crew): Promise<{ state: CrewFile; stream: Message[] }> {
  const [state, stream] = await Promise.all([readCrew(crew.paths), readStream(crew.paths)]);
  return { state, stream };
}
