import { OttoError } from "../core/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import type { ModelRef } from "../session/index.ts";
import type { Crew } from "./context.ts";
import type { PermissionRule } from "./host.ts";
import { AGENT_NAME, RESERVED_NAMES, type Agent, type CrewFile } from "./schema.ts";
import { meterAgent } from "./spend.ts";
import { transact } from "./store.ts";
import { claimOwner } from "./inbox.ts";
import { markUndeliverable } from "./wake.ts";

/** The OpenCode agent a crew agent runs as unless --agent says otherwise (agents/otto-crew.md). */
export const CREW_AGENT = "otto-crew";

/**
 * Rules on every agent's session (OpenCode 1.18 merges them after the agent's own, last match
 * wins): the crew tools are offered to whatever agent runs there, even one that denies `otto_*`;
 * the orchestrator's own tool is not (an agent must not make itself the orchestrator); the
 * question tool would wait for an answer in a TUI nobody is looking at.
 */
export const CREW_PERMISSIONS: PermissionRule[] = [
  { permission: "otto_agent", pattern: "*", action: "deny" },
  { permission: "otto_agent_*", pattern: "*", action: "allow" },
  { permission: "question", pattern: "*", action: "deny" },
];

export interface SpawnInput {
  name: string;
  task: string;
  orchestrator: { sessionID: string; directory: string };
  /** --agent; default otto-crew. */
  agent?: string;
  /** --model, else the orchestrator's model. */
  model?: ModelRef;
  /** Where the session runs: the project, or the worktree made for it. */
  directory: string;
  worktree?: Agent["worktree"];
  /** --budget, else limits.crew_usd_per_agent (US dollars); unset: no limit. */
  budget?: number;
}

export function checkName(name: string, state: CrewFile): void {
  if (!AGENT_NAME.test(name) || (RESERVED_NAMES as readonly string[]).includes(name)) {
    throw new OttoError(
      "crew_name",
      `'${name}' cannot be an agent's name: use 1-32 lower-case letters, digits and '-', starting with a letter, and not ${RESERVED_NAMES.join(", ")}.`,
      "Pick a name like impl-1 or reviewer.",
    );
  }
  if (state.agents.some((a) => a.name === name)) {
    const names = state.agents.map((a) => `${a.name} (${a.state})`).join(", ");
    throw new OttoError(
      "crew_name_taken",
      `This crew already has an agent named '${name}'. Agents: ${names}.`,
      "Pick another name, or archive finished agents with /otto-agent archive to reuse theirs.",
    );
  }
}

function roster(state: CrewFile, name: string): string[] {
  return state.agents.filter((a) => a.name !== name).map((a) => `@${a.name}: ${a.task.replace(/\s+/g, " ").slice(0, 120)} (${a.state})`);
}

/** Creates the agent's session, records it as busy, and sends its first prompt through the gate. */
export async function spawnAgent(crew: Crew, input: SpawnInput, state: CrewFile): Promise<Agent> {
  checkName(input.name, state);
  const agentName = input.agent ?? CREW_AGENT;
  const sessionID = await crew.host.createSession({
    parentID: input.orchestrator.sessionID,
    title: `otto crew: ${input.name}`,
    directory: input.directory,
    permission: CREW_PERMISSIONS,
  });
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: current, stream, now }) => {
      checkName(input.name, current);
      const at = now.toISOString();
      const agent: Agent = {
        name: input.name,
        sessionID,
        directory: input.directory,
        agent: agentName,
        model: input.model,
        task: input.task,
        state: "busy",
        createdAt: at,
        activeAt: at,
        worktree: input.worktree,
        ...(input.budget !== undefined ? { budget: input.budget } : {}),
      };
      // Only reconciliation moves a crew to another process, once it has checked the sessions
      // (reconcile.ts); a crew without agents has none to check.
      if (current.agents.length === 0) current.host = { pid: crew.pid };
      if (crew.paths.id) claimOwner(current, crew);
      current.agents.push(agent);
      current.cursors[input.name] = stream.at(-1)?.seq ?? 0;
      current.orchestrator = input.orchestrator;
      return { agent, roster: roster(current, input.name) };
    },
    crew.secrets?.() ?? [],
  );
  const { agent } = committed.result;
  // Before its first prompt: every call of its session, from the first, is charged to the agent.
  meterAgent(crew, agent);
  const text = renderPrompt(
    "crew-agent",
    {
      name: agent.name,
      task: agent.task,
      directory: agent.directory,
      crew: committed.result.roster.length ? committed.result.roster : undefined,
      branch: agent.worktree?.branch,
    },
    { env: crew.env },
  );
  crew.gates.enqueue(sessionID, {
    key: `${agent.name}:task`,
    order: 0,
    deliver: async () => {
      try {
        await crew.host.prompt(sessionID, agent.directory, { agent: agent.agent, model: agent.model, text });
        return "sent";
      } catch (error) {
        await markUndeliverable(crew, agent.name, error);
        throw error;
      }
    },
  });
  return agent;
}
