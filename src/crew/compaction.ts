import { OTTO_AGENT, orchestratorAgent } from "../core/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import { ARTIFACTS, listSpecs, type SpecEntry } from "../spec/index.ts";
import type { Crew } from "./context.ts";
import { unreadFor } from "./policy.ts";
import { reconcileCrew } from "./reconcile.ts";
import { countLine, formatMessages, renderStatusTable } from "./render.ts";
import { ORCHESTRATOR } from "./schema.ts";
import { readCrew, readStream } from "./store.ts";

/** `auth: 3/7 tasks completed, 1 failed` or `rate-limit: requirements, research written; no tasks yet`. Undefined when finished. */
export function specProgress(spec: SpecEntry): string | undefined {
  const t = spec.tasks;
  if (!t) {
    const written = ARTIFACTS.filter((a) => spec.artifacts[a]);
    return `${spec.slug}: ${written.length ? `${written.join(", ")} written` : "no documents yet"}; no tasks yet`;
  }
  const done = t.byStatus.completed + t.byStatus.skipped;
  if (done === t.total && t.total > 0) return undefined;
  const extra = (["running", "failed"] as const).filter((s) => t.byStatus[s] > 0).map((s) => `${t.byStatus[s]} ${s}`);
  return `${spec.slug}: ${t.byStatus.completed}/${t.total} tasks completed${extra.length ? `, ${extra.join(", ")}` : ""}`;
}

function specsInProgress(root: string): string[] {
  try {
    return listSpecs(root).flatMap((spec) => specProgress(spec) ?? []);
  } catch {
    // A spec that does not parse is /otto-spec's to report; the summary can do without it.
    return [];
  }
}

/**
 * Otto's state for the compaction of an orchestrator session (the crew's, or any session of the
 * `otto` agent or last running a slash command), so the summary still knows what it was doing. Undefined for other sessions.
 */
export async function compactionContext(crew: Crew, sessionID: string, directory: string): Promise<string | undefined> {
  const seen = await readCrew(crew.paths);
  if (seen.orchestrator?.sessionID !== sessionID) {
    if (seen.agents.some((a) => a.sessionID === sessionID)) return undefined;
    const role = await crew.host.lastRole(sessionID, directory).catch(() => ({ agent: undefined }));
    if (orchestratorAgent(role.agent) !== OTTO_AGENT) return undefined;
  }
  // After a restart the summary must not keep agents that died with the old process as busy.
  const state = (await reconcileCrew(crew)).length ? await readCrew(crew.paths) : seen;
  const now = crew.now();
  const crewText = state.agents.length ? `${countLine(state.agents)}\n\n${renderStatusTable(state.agents, now)}` : "No agents.";
  const unread = unreadFor(ORCHESTRATOR, state, await readStream(crew.paths));
  const specs = specsInProgress(crew.paths.root);
  return renderPrompt(
    "crew-compaction",
    { crew: crewText, unread: unread.length ? formatMessages(unread) : undefined, specs: specs.length ? specs : undefined },
    { env: crew.env },
  );
}
