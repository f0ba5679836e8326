import { z } from "zod";
import { UsageRecord } from "../cost/index.ts";

/*
 * The crew's durable state (docs/crew.md), one folder per (project, branch) under otto's data folder:
 * `crew.json` (agents, read cursors, the orchestrator session) and `messages.jsonl` (the shared
 * stream, one message a line).
 */

/**
 * busy: a turn runs or is queued; blocked: asked a question; idle: stopped (killed), waits for a
 * prompt; stopped: its budget was reached, it takes no more prompts.
 */
export const AGENT_STATES = ["busy", "idle", "blocked", "done", "failed", "stopped"] as const;
export const AgentState = z.enum(AGENT_STATES);
export type AgentState = z.infer<typeof AgentState>;

/** Who speaks in the stream: "otto" (the orchestrator), "crew" (otto's own notices), or an agent's name. */
export const ORCHESTRATOR = "otto";
export const SYSTEM = "crew";
export const HUMAN = "human";
/** Names an agent may not take: they are addresses with a meaning of their own. */
export const RESERVED_NAMES = [ORCHESTRATOR, SYSTEM, HUMAN, "all"] as const;

export const AGENT_NAME = /^[a-z][a-z0-9-]{0,31}$/;

const ModelRef = z.object({ providerID: z.string(), modelID: z.string() });

export const Agent = z.object({
  name: z.string().regex(AGENT_NAME),
  sessionID: z.string(),
  /** Where its session lives (the project, or its worktree). */
  directory: z.string(),
  /** The OpenCode agent its prompts run with (otto-crew unless --agent). */
  agent: z.string(),
  model: ModelRef.optional(),
  task: z.string(),
  state: AgentState,
  /** The state to go back to when a turn started by a teammate's mention ends (see policy.ts). */
  resume: AgentState.optional(),
  createdAt: z.string(),
  /** Last thing that happened to it: a message, a prompt, a state change. */
  activeAt: z.string(),
  /** When it last became busy: a session.idle older than that turn's first message is not its end (events.ts). */
  busySince: z.string().optional(),
  summary: z.string().optional(),
  /** The open question (blocked), by the seq of its message. */
  question: z.object({ seq: z.number().int(), text: z.string(), human: z.boolean() }).optional(),
  /** A message that needs a person (`@human`, or a question to the human), until otto prompts the agent. */
  human: z.object({ seq: z.number().int(), text: z.string() }).optional(),
  error: z.string().optional(),
  worktree: z.object({ name: z.string(), branch: z.string(), dir: z.string() }).optional(),
  /** Set by reconciliation: what it found (session gone, idle after a restart). */
  note: z.string().optional(),
  /** What it may spend in all, in US dollars (--budget, limits.crew_usd_per_agent); unset: no limit. */
  budget: z.number().positive().optional(),
  /** What its session's model calls used so far (updated when a turn ends). */
  spend: UsageRecord.optional(),
});
export type Agent = z.infer<typeof Agent>;

/** Another crew's sender of a message: `project:branch:agent`. */
export const Via = z.object({ project: z.string(), branch: z.string(), agent: z.string() });
export type Via = z.infer<typeof Via>;

export const CrewFile = z.object({
  version: z.literal(1),
  /** Which crew this is (identity.ts); unset in the previous layout, where the folder said it. */
  id: z.object({ project: z.string(), branch: z.string(), home: z.string(), tracked: z.boolean().optional() }).optional(),
  /** The OpenCode process that delivers messages from other crews (inbox.ts); another one takes over when it is gone. */
  owner: z.object({ pid: z.number().int() }).optional(),
  /** The session otto wakes: the last one that ran /otto-agent. */
  orchestrator: z.object({ sessionID: z.string(), directory: z.string() }).optional(),
  /** The OpenCode process that runs the crew's sessions (restart detection, reconcile.ts). */
  host: z.object({ pid: z.number().int() }).optional(),
  /** What the last reconciliation changed, kept until `status` shows it (any verb may have reconciled). */
  reconciled: z.array(z.string()).optional(),
  /** Reader → seq of the last message it has seen (otto and every agent). */
  cursors: z.record(z.string(), z.number().int()),
  agents: z.array(Agent),
});
export type CrewFile = z.infer<typeof CrewFile>;

export const MESSAGE_KINDS = ["say", "ask", "complete", "failed", "prompt", "notice"] as const;
export const MessageKind = z.enum(MESSAGE_KINDS);
export type MessageKind = z.infer<typeof MessageKind>;

export const Message = z.object({
  seq: z.number().int().min(1),
  at: z.string(),
  from: z.string(),
  kind: MessageKind,
  text: z.string(),
  /** `@name` addresses in the text, resolved: agent names, "otto", "human". */
  mentions: z.array(z.string()),
  /** The agent a prompt from otto is for. */
  to: z.string().optional(),
  /** Set when the message came from another crew: text from another session, shown fenced as data. */
  via: Via.optional(),
  /** Addresses in other crews this message named (`feature/b:worker`); the sender was told which were sent. */
  sent: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof Message>;

/** A message before the store numbers and dates it. */
export type NewMessage = Omit<Message, "seq" | "at">;

export function emptyCrew(): CrewFile {
  return { version: 1, cursors: {}, agents: [] };
}
