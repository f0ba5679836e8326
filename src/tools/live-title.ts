import type { ToolContext } from "@opencode-ai/plugin";
import type { ToolPart } from "@opencode-ai/sdk";
import { formatError } from "../core/index.ts";
import { patchPart } from "../core/private-routes.ts";
import type { Runtime } from "../runtime.ts";

export interface LiveTitle {
  set(title: string): void;
  /** Waits for the last update, so none can land after the tool has returned. */
  flush(): Promise<void>;
}

/**
 * Progress in a running tool's title. `ctx.metadata({ title })` is the plugin API for it, but in
 * OpenCode 1.18.33 it does nothing for plugin tools: the context's `metadata` returns an Effect that
 * nobody runs (docs/decisions.md). So the title is also written to the tool's part through
 * OpenCode's own route, PATCH /session/{sessionID}/message/{messageID}/part/{partID}, which
 * publishes `message.part.updated` for the TUI. Updates run one at a time and only the newest
 * pending title is sent; failures are logged, never thrown.
 */
export function liveTitle(runtime: Pick<Runtime, "client" | "log">, ctx: ToolContext): LiveTitle {
  let chain: Promise<void> = Promise.resolve();
  let latest: string | undefined;
  const callID = (ctx as ToolContext & { callID?: string }).callID;

  async function write(title: string): Promise<void> {
    const { sessionID, messageID, directory } = ctx;
    const message = await runtime.client.session.message({ path: { id: sessionID, messageID }, query: { directory } });
    const part = message.data?.parts.find(
      (p): p is ToolPart => p.type === "tool" && (callID ? p.callID === callID : p.state.status === "running"),
    );
    if (!part || part.state.status !== "running") return;
    const result = await patchPart(runtime.client, {
      sessionID,
      messageID,
      partID: part.id,
      directory,
      part: { ...part, state: { ...part.state, title } },
    });
    if (result.error !== undefined) throw new Error(JSON.stringify(result.error));
  }

  return {
    set(title) {
      ctx.metadata({ title });
      latest = title;
      chain = chain
        .then(() => (latest === title ? write(title) : undefined))
        .catch((error: unknown) => runtime.log.log("debug", "could not update the tool title", { error: formatError(error) }));
    },
    flush: () => chain,
  };
}
