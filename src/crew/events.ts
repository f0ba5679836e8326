import type { Event, Message } from "@opencode-ai/sdk";
import { redact } from "../core/index.ts";
import type { Crew } from "./context.ts";
import { onError, onIdle, type Transition } from "./policy.ts";
import type { Agent } from "./schema.ts";
import { recordSpend, stoppedAtBudget } from "./spend.ts";
import { readCrew, transact } from "./store.ts";
import { dispatch } from "./wake.ts";

function errorOf(event: Extract<Event, { type: "session.error" }>): { name: string; message: string } {
  const error = event.properties.error;
  const data = (error?.data ?? {}) as { message?: unknown };
  return { name: error?.name ?? "UnknownError", message: redact(typeof data.message === "string" ? data.message : "unknown error") };
}

/**
 * Whether the session's newest message (read when its idle arrived) says the turn that made the
 * agent busy goes on: none of its messages yet (the idle ended an earlier turn, such as a killed
 * one's late end), a prompt not yet answered, or an answer not finished or ending in tool calls
 * (another step follows). Unknown counts as ended.
 */
function turnGoesOn(agent: Agent, newest: Message | undefined): boolean {
  if (!newest || agent.state !== "busy") return false;
  if (agent.busySince !== undefined && newest.time.created < Date.parse(agent.busySince)) return true;
  if (newest.role === "user") return true;
  return newest.time.completed === undefined || (newest.finish === "tool-calls" && newest.error === undefined);
}

/** The session an event is about, when it can change an agent's state. */
function sessionOf(event: Event): string | undefined {
  if (event.type === "session.idle") return event.properties.sessionID;
  if (event.type === "session.error") return event.properties.sessionID;
  return undefined;
}

/**
 * An agent's turn ended (`session.idle`) or failed (`session.error`): apply the policy under the
 * lock, on the state as it is then, and wake whoever the resulting notice is for. Cheap for the
 * sessions of everyone else: one read of crew.json, none when there is no crew.
 */
export async function handleCrewEvent(crew: Crew, event: Event): Promise<void> {
  const sessionID = sessionOf(event);
  if (!sessionID) return;
  const known = (await readCrew(crew.paths)).agents.find((a) => a.sessionID === sessionID);
  if (!known) return;
  const newest =
    event.type === "session.idle" ? (await crew.host.messages(known.sessionID, known.directory, 1).catch(() => []))[0]?.info : undefined;
  const decide = (agent: Agent, now: Date): Transition | undefined => {
    // A turn its budget stopped (its next call held or aborted) is settled as a budget stop (spend.ts), not as a failure.
    if (stoppedAtBudget(sessionID)) return undefined;
    if (event.type === "session.error") return onError(agent, errorOf(event), now);
    return turnGoesOn(agent, newest) ? undefined : onIdle(agent, now);
  };
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, post, now }) => {
      const agent = state.agents.find((a) => a.sessionID === sessionID);
      const transition = agent && decide(agent, now);
      if (!agent || !transition) return;
      Object.assign(agent, transition.patch);
      if (transition.notice) post(transition.notice);
    },
    crew.secrets?.() ?? [],
  );
  dispatch(crew, committed.posted, committed.crew);
  // The turn's calls are all in its messages now: the spend on record, and the budget's check.
  await recordSpend(crew, known);
}
