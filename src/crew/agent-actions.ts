import { OttoError } from "../core/index.ts";
import type { Crew } from "./context.ts";
import { parseMentions } from "./mentions.ts";
import { onComplete, wakeTargets } from "./policy.ts";
import { HUMAN, type Agent, type CrewFile, type Message, type MessageKind } from "./schema.ts";
import { readCrew, transact, type Transaction } from "./store.ts";
import { dispatch } from "./wake.ts";
import { sendRemote, type RemoteResult } from "./remote.ts";

/*
 * What a crew agent does through its tools (otto_agent_say / ask / complete). The agent is found
 * by the session the tool runs in, so an agent can only ever speak as itself.
 */

export interface Posted {
  agent: Agent;
  message: Message;
  /** Who the message wakes: "otto" or agent names. */
  woken: string[];
  /** `@words` that name nobody. */
  unknown: string[];
  names: string[];
  /** What became of the addresses in other crews. */
  remote: RemoteResult[];
}

function agentOf(state: CrewFile, sessionID: string): Agent {
  const agent = state.agents.find((a) => a.sessionID === sessionID);
  if (!agent) {
    throw new OttoError(
      "not_a_crew_agent",
      "This session is not an agent of otto's crew, so it cannot post to the crew's stream.",
      "Crew tools are for agents started with /otto-agent spawn; the orchestrator uses /otto-agent.",
    );
  }
  return agent;
}

async function post(
  crew: Crew,
  sessionID: string,
  kind: MessageKind,
  text: string,
  update: (agent: Agent, message: Message, tx: Transaction) => void,
  extraMentions: string[] = [],
): Promise<Posted> {
  if (!text.trim()) throw new OttoError("crew_empty_message", "The message is empty.", "Pass the text to post.");
  // Checked before taking the lock too, so a stray call creates no crew folder.
  agentOf(await readCrew(crew.paths), sessionID);
  const committed = await transact(
    crew.paths,
    crew.now,
    (tx) => {
      const agent = agentOf(tx.crew, sessionID);
      const names = tx.crew.agents.map((a) => a.name);
      const parsed = parseMentions(text, names);
      const mentions = [...new Set([...parsed.mentions, ...extraMentions])].filter((m) => m !== agent.name);
      const sent = parsed.remote.map((a) => a.text);
      const message = tx.post({ from: agent.name, kind, text: text.trim(), mentions, ...(sent.length ? { sent } : {}) });
      agent.activeAt = tx.now.toISOString();
      if (mentions.includes(HUMAN)) agent.human = { seq: message.seq, text: message.text };
      update(agent, message, tx);
      return { agent: { ...agent }, message, unknown: parsed.unknown, names, addresses: parsed.remote };
    },
    crew.secrets?.() ?? [],
  );
  const { result } = committed;
  dispatch(crew, committed.posted, committed.crew);
  const woken = wakeTargets(result.message, committed.crew).map((t) => (t.kind === "otto" ? "otto" : t.name));
  const { addresses, ...rest } = result;
  const id = crew.paths.id;
  const remote = id
    ? await sendRemote(crew, id, { project: id.project, branch: id.branch, agent: rest.agent.name }, result.message.text, addresses)
    : addresses.map((a) => ({
        address: a.text,
        error: `@${a.text}: this crew has no address of its own (it predates crews across branches).`,
      }));
  return { ...rest, woken, remote };
}

export function say(crew: Crew, sessionID: string, text: string): Promise<Posted> {
  return post(crew, sessionID, "say", text, () => undefined);
}

/** A question: the agent is blocked until otto (or, through otto, the human) answers with a prompt. */
export function ask(crew: Crew, sessionID: string, question: string, human: boolean): Promise<Posted> {
  return post(
    crew,
    sessionID,
    "ask",
    question,
    (agent, message) => {
      Object.assign(agent, {
        state: "blocked",
        resume: undefined,
        question: { seq: message.seq, text: message.text, human: message.mentions.includes(HUMAN) },
      });
    },
    human ? [HUMAN] : [],
  );
}

/** The task is finished (or failed, with a last line `TASK_FAILED: <reason>`). */
export function complete(crew: Crew, sessionID: string, summary: string): Promise<Posted> {
  return post(crew, sessionID, "complete", summary, (agent, _message, tx) => {
    Object.assign(agent, onComplete(summary, tx.now));
  });
}
