import fs from "node:fs/promises";
import { OttoError, assertOttoPathSafe } from "../core/index.ts";
import type { Crew } from "./context.ts";
import { parseMentions } from "./mentions.ts";
import { unreadFor } from "./policy.ts";
import { ORCHESTRATOR, type Agent, type CrewFile, type Message } from "./schema.ts";
import { readCrew, transact } from "./store.ts";
import { dispatch } from "./wake.ts";

/*
 * What the orchestrator does to its crew (/otto-agent prompt, kill, archive, messages, --wait).
 * Every verb records the calling session as the crew's orchestrator: wake-ups go to the session
 * that last spoke for the crew.
 */

export interface Orchestrator {
  sessionID: string;
  directory: string;
}

export function findAgent(state: CrewFile, name: string): Agent {
  const agent = state.agents.find((a) => a.name === name);
  if (!agent) {
    const names = state.agents.map((a) => a.name);
    throw new OttoError(
      "crew_agent_unknown",
      `The crew has no agent named '${name}'.`,
      names.length ? `Agents: ${names.join(", ")} (/otto-agent status).` : "Start one with /otto-agent spawn <name> <task>.",
    );
  }
  return agent;
}

/** Answers a question or redirects an agent: a message to it in the stream, delivered as its next prompt. */
export async function promptAgent(
  crew: Crew,
  orchestrator: Orchestrator,
  name: string,
  text: string,
): Promise<{ agent: Agent; message: Message; queued: boolean }> {
  if (!text.trim()) throw new OttoError("crew_empty_message", "The prompt is empty.", `Usage: /otto-agent prompt ${name} <text>`);
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, post }) => {
      const agent = findAgent(state, name);
      if (agent.state === "stopped") {
        throw new OttoError(
          "crew_agent_stopped",
          `@${name} was stopped at its budget (${agent.error ?? "budget reached"}); it takes no more prompts.`,
          `Read its work with /otto-agent peek ${name}; to go on, archive it (/otto-agent archive ${name}) and spawn an agent with a larger --budget.`,
        );
      }
      const mentions = parseMentions(
        text,
        state.agents.map((a) => a.name),
      ).mentions.filter((m) => m !== ORCHESTRATOR);
      const message = post({
        from: ORCHESTRATOR,
        kind: "prompt",
        to: name,
        text: text.trim(),
        mentions: [...new Set([name, ...mentions])],
      });
      // Answered: it leaves the top of the status list now, not when the prompt reaches the session.
      agent.human = undefined;
      state.orchestrator = orchestrator;
      return { agent: { ...agent }, message };
    },
    crew.secrets?.() ?? [],
  );
  const queued = committed.result.agent.state === "busy";
  dispatch(crew, committed.posted, committed.crew);
  return { ...committed.result, queued };
}

/** Aborts the agent's turn and drops its queued prompts; it stays in the crew as idle. */
export async function killAgent(crew: Crew, orchestrator: Orchestrator, name: string): Promise<Agent> {
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, now }) => {
      const agent = findAgent(state, name);
      Object.assign(agent, { state: "idle", resume: undefined, error: "stopped by /otto-agent kill", activeAt: now.toISOString() });
      state.orchestrator = orchestrator;
      return { ...agent };
    },
    crew.secrets?.() ?? [],
  );
  const agent = committed.result;
  crew.gates.clear(agent.sessionID);
  await crew.host.abort(agent.sessionID, agent.directory);
  return agent;
}

const FINISHED = new Set<Agent["state"]>(["done", "failed", "idle", "stopped"]);

/** Moves finished agents (or the named ones) out of the crew into archive.jsonl; their names become free. */
export async function archiveAgents(crew: Crew, names: readonly string[]): Promise<Agent[]> {
  const committed = await transact(
    crew.paths,
    crew.now,
    async ({ crew: state, now }) => {
      const chosen = names.length ? names.map((n) => findAgent(state, n)) : state.agents.filter((a) => FINISHED.has(a.state));
      const running = chosen.filter((a) => !FINISHED.has(a.state));
      if (running.length) {
        throw new OttoError(
          "crew_agent_running",
          `${running.map((a) => `${a.name} is ${a.state}`).join(", ")}: only done, failed, idle or stopped agents can be archived.`,
          `Stop it first: /otto-agent kill ${running[0]?.name ?? "<name>"}`,
        );
      }
      state.agents = state.agents.filter((a) => !chosen.includes(a));
      for (const agent of chosen) delete state.cursors[agent.name];
      if (chosen.length) await assertOttoPathSafe(crew.paths.archive);
      if (chosen.length)
        await fs.appendFile(crew.paths.archive, chosen.map((a) => `${JSON.stringify({ ...a, archivedAt: now.toISOString() })}\n`).join(""));
      return chosen;
    },
    crew.secrets?.() ?? [],
  );
  const archived = committed.result;
  for (const agent of archived) crew.gates.clear(agent.sessionID);
  return archived;
}

/** The stream for otto: what it has not read, and with `all` the rest; everything becomes read. */
export async function readMessages(crew: Crew, orchestrator: Orchestrator): Promise<{ unread: Message[]; earlier: Message[] }> {
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, stream }) => {
      const unread = unreadFor(ORCHESTRATOR, state, stream);
      state.cursors[ORCHESTRATOR] = stream.at(-1)?.seq ?? 0;
      state.orchestrator = orchestrator;
      return { unread, earlier: stream.filter((m) => !unread.includes(m)) };
    },
    crew.secrets?.() ?? [],
  );
  return committed.result;
}

const SETTLED = new Set<Agent["state"]>(["blocked", "done", "failed", "idle", "stopped"]);

/**
 * `spawn --wait`: returns when the agent completes, asks, fails or needs a human, with otto's
 * unread messages (now read, so the wake-up they queued is dropped). Polls the crew file, which
 * every OpenCode instance and process writes. Undefined when the signal fired first.
 */
export async function waitForAgent(
  crew: Crew,
  orchestrator: Orchestrator,
  name: string,
  signal?: AbortSignal,
  pollMs = 500,
): Promise<{ agent: Agent; unread: Message[] } | undefined> {
  for (;;) {
    if (signal?.aborted) return undefined;
    const seen = findAgent(await readCrew(crew.paths), name);
    if (!SETTLED.has(seen.state) && !seen.human) {
      await crew.sleep(pollMs, signal);
      continue;
    }
    const committed = await transact(
      crew.paths,
      crew.now,
      ({ crew: state, stream }) => {
        const agent = findAgent(state, name);
        if (!SETTLED.has(agent.state) && !agent.human) return undefined;
        const unread = unreadFor(ORCHESTRATOR, state, stream);
        state.cursors[ORCHESTRATOR] = stream.at(-1)?.seq ?? 0;
        state.orchestrator = orchestrator;
        return { agent: { ...agent }, unread };
      },
      crew.secrets?.() ?? [],
    );
    if (committed.result) return committed.result;
    await crew.sleep(pollMs, signal);
  }
}
