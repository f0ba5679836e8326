import { MARKERS } from "../prompts/index.ts";
import { HUMAN, ORCHESTRATOR, SYSTEM, type Agent, type CrewFile, type Message, type NewMessage } from "./schema.ts";

/*
 * The crew's rules as pure functions of plain data: who a message wakes, what a reader has not
 * seen, how an agent's state moves when a turn ends. The event handler and the tools apply them.
 */

export type WakeTarget = { kind: "otto" } | { kind: "agent"; name: string };

const WAKES_OTTO = new Set<Message["kind"]>(["ask", "complete", "failed"]);

/** Who a new message wakes: the orchestrator for questions, completions, failures and `@otto`; agents it names. */
export function wakeTargets(message: Message, crew: Pick<CrewFile, "agents">): WakeTarget[] {
  const targets: WakeTarget[] = [];
  if (message.from !== ORCHESTRATOR && (WAKES_OTTO.has(message.kind) || message.mentions.includes(ORCHESTRATOR))) {
    targets.push({ kind: "otto" });
  }
  // otto's own notices (failures) are for otto: waking the agent they are about would restart it.
  if (message.from === SYSTEM) return targets;
  const names = new Set([...message.mentions, ...(message.to ? [message.to] : [])]);
  for (const agent of crew.agents) {
    if (names.has(agent.name) && agent.name !== message.from) targets.push({ kind: "agent", name: agent.name });
  }
  return targets;
}

/** Whether a message is for this reader: otto reads the whole stream; an agent what names it. */
export function isFor(reader: string, message: Message): boolean {
  if (message.from === reader) return false;
  if (reader === ORCHESTRATOR) return true;
  return message.mentions.includes(reader) || message.to === reader;
}

/** The reader's messages after its cursor, up to `upTo` (a seq) when given. */
export function unreadFor(reader: string, crew: Pick<CrewFile, "cursors">, stream: readonly Message[], upTo = Infinity): Message[] {
  const cursor = crew.cursors[reader] ?? 0;
  return stream.filter((m) => m.seq > cursor && m.seq <= upTo && isFor(reader, m));
}

export function needsHuman(message: Message): boolean {
  return message.mentions.includes(HUMAN);
}

export type AgentPatch = Partial<Agent>;

/**
 * Messages are about to be delivered to an agent. A prompt from otto (an answer, a redirect) is
 * new work: the agent is busy and must complete again. A teammate's mention only interrupts: when
 * that turn ends, the agent goes back to where it was (blocked, done, …).
 */
export function onDeliver(agent: Agent, messages: readonly Message[], now: Date): AgentPatch {
  const at = now.toISOString();
  const busySince = agent.state === "busy" ? (agent.busySince ?? at) : at;
  if (messages.some((m) => m.from === ORCHESTRATOR && m.kind === "prompt")) {
    return {
      state: "busy",
      resume: undefined,
      question: undefined,
      human: undefined,
      error: undefined,
      note: undefined,
      activeAt: at,
      busySince,
    };
  }
  if (agent.state === "busy") return { activeAt: at };
  return { state: "busy", resume: agent.state, activeAt: at, busySince };
}

export interface Transition {
  patch: AgentPatch;
  /** A notice for the stream (a failure), which wakes the orchestrator. */
  notice?: NewMessage;
}

/** The stream's notice that an agent failed; it wakes otto, not the agent. */
export function failureNotice(name: string, reason: string): NewMessage {
  return { from: SYSTEM, kind: "failed", text: `@${name} failed: ${reason}`, mentions: [] };
}

function failed(agent: Agent, reason: string, now: Date): Transition {
  return {
    patch: { state: "failed", resume: undefined, error: reason, activeAt: now.toISOString() },
    notice: failureNotice(agent.name, reason),
  };
}

/** Its session went idle. Busy without a way back means it stopped without completing: a failure. */
export function onIdle(agent: Agent, now: Date): Transition | undefined {
  if (agent.state !== "busy") return undefined;
  if (agent.resume) return { patch: { state: agent.resume, resume: undefined, activeAt: now.toISOString() } };
  return failed(agent, "its turn ended without otto_agent_complete or otto_agent_ask", now);
}

/** Its session reported an error. An aborted turn (kill) is not a failure: kill already set the state. */
export function onError(agent: Agent, error: { name: string; message: string }, now: Date): Transition | undefined {
  if (agent.state !== "busy" || error.name === "MessageAbortedError") return undefined;
  return failed(agent, `${error.name}: ${error.message}`, now);
}

/** otto_agent_complete: done, or failed when the summary ends with `TASK_FAILED: <reason>`. */
export function onComplete(summary: string, now: Date): AgentPatch {
  const lastLine = summary.trim().split("\n").at(-1)?.trim() ?? "";
  const base = { summary: summary.trim(), resume: undefined, question: undefined, activeAt: now.toISOString() };
  if (lastLine.startsWith(MARKERS.taskFailed))
    return { ...base, state: "failed", error: lastLine.slice(MARKERS.taskFailed.length).trim() || "reported TASK_FAILED" };
  return { ...base, state: "done", error: undefined };
}

const ORDER: Record<Agent["state"], number> = { blocked: 0, failed: 1, stopped: 2, busy: 3, idle: 4, done: 5 };

/** Agents for a status listing: the ones a person must look at first, then blocked, failed, busy, idle, done. */
export function sortForStatus(agents: readonly Agent[]): Agent[] {
  return [...agents].sort((a, b) => Number(!a.human) - Number(!b.human) || ORDER[a.state] - ORDER[b.state] || a.name.localeCompare(b.name));
}

/** The one-line crew state that ends every wake-up: `alice blocked · bob done · needs a human: alice`. */
export function summaryLine(crew: Pick<CrewFile, "agents">): string {
  if (crew.agents.length === 0) return "no agents";
  const parts = sortForStatus(crew.agents).map((a) => `${a.name} ${a.state}`);
  const human = crew.agents.filter((a) => a.human).map((a) => a.name);
  return [...parts, ...(human.length ? [`needs a human: ${human.join(", ")}`] : [])].join(" · ");
}
