/** The orchestrator agent (agents/otto.md): the one a person talks to, and the one the crew wakes. */
export const OTTO_AGENT = "otto";

/**
 * The agents of the slash commands' turns are named `otto.<command>` (`otto.spec`, `otto.pr-review`;
 * generated from agents/command/agent.md). Not `otto-…`: that is the family of otto's guarded
 * subagents (src/guard), and a command's turn runs in the user's own session.
 */
export const COMMAND_AGENT_PREFIX = "otto.";

export const isCommandAgent = (agent: string | undefined): boolean => agent?.startsWith(COMMAND_AGENT_PREFIX) ?? false;

/**
 * The agent a session of otto's last ran as, as otto's own flows see it: a slash command's turn
 * stands for the orchestrator, whose agent (with otto's prompt and tools) takes the session's next
 * turn that otto starts (a crew wake-up).
 */
export const orchestratorAgent = (agent: string | undefined): string | undefined => (isCommandAgent(agent) ? OTTO_AGENT : agent);
