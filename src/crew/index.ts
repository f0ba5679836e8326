/**
 * src/crew: background agents that talk, ask, escalate and wake the orchestrator (docs/crew.md).
 * State is files under otto's data folder, one folder per (project, branch); prompts into sessions go through one gate each.
 */
export { crewFor, createCrewService, type CrewService } from "./service.ts";
export { crewAt, isOneShotRun, type Crew, type CrewDeps } from "./context.ts";
export { spawnAgent, checkName, CREW_AGENT, CREW_PERMISSIONS, type SpawnInput } from "./spawn.ts";
export { promptAgent, killAgent, archiveAgents, readMessages, waitForAgent, findAgent, type Orchestrator } from "./orchestrate.ts";
export { say, ask, complete, type Posted } from "./agent-actions.ts";
export { crewStatus } from "./status.ts";
export { reconcileCrew } from "./reconcile.ts";
export { compactionContext } from "./compaction.ts";
export { snapshot } from "./wake.ts";
export { formatMessage, formatMessages, formatAge } from "./render.ts";
export { PromptGates, processGates, type GateItem } from "./gate.ts";
export { openCodeHost, type CrewHost, type PermissionRule } from "./host.ts";
export { findCrewRoot, crewPaths, type CrewPaths } from "./paths.ts";
export { parseMentions } from "./mentions.ts";
export { AGENT_STATES, ORCHESTRATOR, type Agent, type AgentState, type CrewFile, type Message } from "./schema.ts";
export { agentWorktree } from "./worktree.ts";
export { crewOverview, renderOverview, crossCrewMessages, type CrewSummary } from "./overview.ts";
export { crewsDir } from "./identity.ts";
