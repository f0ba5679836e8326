import type { Event, OpencodeClient, Part, ToolPart } from "@opencode-ai/sdk";

export interface ToolRun {
  sessionID: string;
  output: string;
  title: string;
}

function toolResult(parts: Part[], tool: string, what: string): Omit<ToolRun, "sessionID"> {
  const part = parts.find((p): p is ToolPart => p.type === "tool" && p.tool === tool);
  if (!part || part.state.status !== "completed")
    throw new Error(`${tool} did not complete for ${what}: ${JSON.stringify(part?.state ?? parts)}`);
  return { output: part.state.output, title: part.state.title };
}

/** Asks the otto agent (in a new session of `opencode serve`) to run the spec; its model calls otto_spec_execute. */
export async function executeTool(client: OpencodeClient, message = "Execute the spec."): Promise<ToolRun> {
  const session = (await client.session.create({ body: { title: "execute" }, throwOnError: true })).data;
  await client.session.prompt({
    path: { id: session.id },
    body: { agent: "otto", parts: [{ type: "text", text: message }] },
    throwOnError: true,
  });
  const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
  return {
    sessionID: session.id,
    ...toolResult(
      messages.flatMap((m) => m.parts),
      "otto_spec_execute",
      message,
    ),
  };
}

/** Runs `/otto-spec <args>` in a new session of `opencode serve`, and returns the tool's result. */
export async function ottoSpec(client: OpencodeClient, args: string): Promise<ToolRun> {
  const session = (await client.session.create({ body: { title: `otto-spec ${args}` }, throwOnError: true })).data;
  await client.session.command({ path: { id: session.id }, body: { command: "otto-spec", arguments: args }, throwOnError: true });
  const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
  return {
    sessionID: session.id,
    ...toolResult(
      messages.flatMap((m) => m.parts),
      "otto_spec",
      args,
    ),
  };
}

/** Titles a tool showed while running (its live progress), in order. */
export function toolTitles(events: readonly Event[], tool: string): string[] {
  return events.flatMap((e) =>
    e.type === "message.part.updated" &&
    e.properties.part.type === "tool" &&
    e.properties.part.tool === tool &&
    "title" in e.properties.part.state
      ? [e.properties.part.state.title ?? ""]
      : [],
  );
}

export function toasts(events: readonly Event[]): string[] {
  return events.flatMap((e) => (e.type === "tui.toast.show" ? [e.properties.message] : []));
}
