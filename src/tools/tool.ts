import { z } from "zod";
import type { ToolContext, ToolDefinition, ToolResult } from "@opencode-ai/plugin";

export type { ToolContext, ToolDefinition, ToolResult };

/**
 * Otto's own `tool()`, the same identity function with `schema` = zod that @opencode-ai/plugin
 * exports. That package is a devDependency, for its types only: at run time it would pull `effect`
 * (~60 MB) into every user's install. OpenCode reads a tool's `args` as a zod shape, and otto's
 * zod is the version the plugin package is built with (see docs/decisions.md).
 */
export function tool<Args extends z.ZodRawShape>(input: {
  description: string;
  args: Args;
  execute(args: z.infer<z.ZodObject<Args>>, context: ToolContext): Promise<ToolResult>;
}): typeof input {
  return input;
}
tool.schema = z;
