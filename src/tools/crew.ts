import { tool, type ToolContext, type ToolDefinition } from "./tool.ts";
import { formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { ask, complete, crewFor, say, type Crew, type Posted } from "../crew/index.ts";

/*
 * The tools of a crew agent. Offered only in the sessions /otto-agent spawn creates (their
 * permission rules allow `otto_agent_*`; every other agent has `otto_*` denied, and the otto agent
 * denies `otto_agent_*`), and they act as the agent whose session calls them.
 */

function woke(posted: Posted): string {
  const lines = [
    posted.woken.length
      ? `Posted #${posted.message.seq}; woke ${posted.woken.map((n) => `@${n}`).join(", ")}.`
      : `Posted #${posted.message.seq}.`,
  ];
  if (posted.unknown.length) {
    const crew = ["otto", "human", ...posted.names.filter((n) => n !== posted.agent.name)].map((n) => `@${n}`);
    lines.push(`Nobody in the crew is called ${posted.unknown.map((n) => `@${n}`).join(", ")}; the crew: ${crew.join(", ")}.`);
  }
  for (const r of posted.remote) {
    if (r.error) lines.push(`Not sent: ${r.error}`);
    else if (r.outcome === "delivered") lines.push(`Sent to @${r.address}; its crew's OpenCode is running and wakes it.`);
    else lines.push(`Queued for @${r.address}: no OpenCode runs its crew now; it is delivered when one starts there.`);
  }
  return lines.join("\n");
}

/** Runs one crew action for the session calling the tool; errors become text the model can act on. */
async function asAgent(runtime: Runtime, ctx: ToolContext, run: (crew: Crew, sessionID: string) => Promise<string>): Promise<string> {
  try {
    return await run(await crewFor(runtime).agentCrew(ctx.sessionID, ctx.directory || runtime.directory), ctx.sessionID);
  } catch (error) {
    return formatError(error);
  }
}

export function crewTools(runtime: Runtime): Record<string, ToolDefinition> {
  return {
    otto_agent_say: tool({
      description:
        "Posts a message to otto's crew stream. Mention who it is for: @name (another agent, who is woken with it), @otto (the orchestrator), @human (a person); @branch:name or @project:branch:name reaches the crew of another branch or project. Without a mention nobody is woken.",
      args: { message: tool.schema.string().describe("The message, with @mentions.") },
      execute: ({ message }, ctx) => asAgent(runtime, ctx, async (crew, sessionID) => woke(await say(crew, sessionID, message))),
    }),
    otto_agent_ask: tool({
      description:
        "Asks a question you cannot go on without. You become blocked: after calling this, end your turn; the answer arrives as a new message.",
      args: {
        question: tool.schema.string().describe("The question, with the context needed to answer it."),
        human: tool.schema
          .boolean()
          .optional()
          .describe("True when only a person can decide (product, security, architecture); otto answers otherwise."),
      },
      execute: ({ question, human }, ctx) =>
        asAgent(runtime, ctx, async (crew, sessionID) => {
          const posted = await ask(crew, sessionID, question, human === true);
          return `${woke(posted)}\nYou are blocked on question #${posted.message.seq}. Stop now: end your turn without calling any other tool. The answer will arrive as a new message.`;
        }),
    }),
    otto_agent_complete: tool({
      description:
        "Reports that your task is finished, with a summary (what changed, how it was verified, assumptions). A last line `TASK_FAILED: <reason>` reports that it could not be done. Call it once, last.",
      args: { summary: tool.schema.string().describe("The summary of your work.") },
      execute: ({ summary }, ctx) =>
        asAgent(runtime, ctx, async (crew, sessionID) => {
          const posted = await complete(crew, sessionID, summary);
          const state =
            posted.agent.state === "failed" ? `Recorded as failed: ${posted.agent.error ?? ""}.` : "Recorded: your task is done.";
          return `${state} Otto has been told. End your turn now.`;
        }),
    }),
  };
}
