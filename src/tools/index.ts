import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin";
import type { Runtime } from "../runtime.ts";
import { TOOL_MANIFEST } from "./manifest.ts";

/**
 * Every tool otto registers, as light stand-ins: the name, description and arguments come from the
 * generated manifest, and the code behind them (all of otto's subsystems) is imported on the first
 * call. Loading otto then costs OpenCode almost nothing (bench/run.ts measures it).
 */
export function buildTools(runtime: Runtime, onLoad?: () => void): Record<string, ToolDefinition> {
  let real: Promise<Record<string, ToolDefinition>> | undefined;
  const load = () =>
    (real ??= import("./registry.ts").then((m) => {
      onLoad?.();
      return m.buildTools(runtime);
    }));
  const tools: Record<string, ToolDefinition> = {};
  for (const [name, spec] of Object.entries(TOOL_MANIFEST)) {
    tools[name] = {
      description: spec.description,
      args: spec.args,
      async execute(args: never, ctx: ToolContext) {
        const tool = (await load())[name];
        if (!tool) throw new Error(`otto: tool ${name} is in the manifest but not in the registry; run npm run manifest`);
        return tool.execute(args, ctx);
      },
    };
  }
  return tools;
}
