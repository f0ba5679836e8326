import { formatError } from "../core/index.ts";
import type { Crew } from "./context.ts";
import type { Orchestrator } from "./orchestrate.ts";
import { failureNotice } from "./policy.ts";
import type { Agent, CrewFile } from "./schema.ts";
import { readCrew, transact } from "./store.ts";
import { dispatch } from "./wake.ts";

type Finding = { name: string; fail?: string; note?: string };

/** Whether the process that ran the crew's sessions is gone (OpenCode restarted), so events were missed. */
export function needsReconcile(state: CrewFile, crew: Pick<Crew, "pid" | "isAlive">): boolean {
  if (state.agents.length === 0) return false;
  const owner = state.host?.pid;
  return owner !== crew.pid && (owner === undefined || !crew.isAlive(owner));
}

async function inspect(crew: Crew, agent: Agent): Promise<Finding | undefined> {
  const exists = await crew.host.exists(agent.sessionID, agent.directory);
  const open = agent.state === "busy" || agent.state === "blocked" || agent.state === "idle";
  if (!exists) {
    return open ? { name: agent.name, fail: "its session no longer exists" } : { name: agent.name, note: "session deleted" };
  }
  if (agent.state === "busy" && !(await crew.host.isBusy(agent.sessionID, agent.directory))) {
    return { name: agent.name, fail: "its session is idle after OpenCode restarted: it stopped without completing" };
  }
  return undefined;
}

/**
 * After an OpenCode restart, compares the crew with the sessions that exist: an agent whose session
 * is gone, or that was busy and is now idle, is marked failed with a notice (which wakes otto);
 * nobody is forgotten. Runs before every orchestrator verb and the compaction hook; once this
 * process owns the crew it costs one read. `orchestrator` (the session running the verb) is
 * recorded first, so the notices wake it and not a conversation that has ended. Returns one line per
 * change; they also wait in crew.json until `/otto-agent status` shows them.
 */
export async function reconcileCrew(crew: Crew, orchestrator?: Orchestrator): Promise<string[]> {
  const state = await readCrew(crew.paths);
  if (!needsReconcile(state, crew)) return [];
  const findings: Finding[] = [];
  for (const agent of state.agents) {
    try {
      const finding = await inspect(crew, agent);
      if (finding) findings.push(finding);
    } catch (error) {
      crew.log.log("warn", `could not check the session of crew agent ${agent.name}`, { error: formatError(error) });
    }
  }
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: current, post, now }) => {
      // Another verb of this process may have reconciled while we looked at the sessions.
      if (!needsReconcile(current, crew)) return [];
      if (orchestrator) current.orchestrator = orchestrator;
      const lines: string[] = [];
      for (const finding of findings) {
        const agent = current.agents.find((a) => a.name === finding.name);
        if (!agent) continue;
        if (finding.fail && agent.state !== "done" && agent.state !== "failed") {
          Object.assign(agent, {
            state: "failed",
            resume: undefined,
            error: finding.fail,
            note: "reconciled after a restart",
            activeAt: now.toISOString(),
          });
          post(failureNotice(agent.name, finding.fail));
          lines.push(`${agent.name}: failed, ${finding.fail}`);
        } else if (finding.note) {
          agent.note = finding.note;
          lines.push(`${agent.name}: ${finding.note}`);
        }
      }
      current.host = { pid: crew.pid };
      if (lines.length) current.reconciled = [...(current.reconciled ?? []), ...lines];
      return lines;
    },
    crew.secrets?.() ?? [],
  );
  dispatch(crew, committed.posted, committed.crew);
  return committed.result;
}
