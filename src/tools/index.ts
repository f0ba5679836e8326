import type { ToolDefinition } from "@opencode-ai/plugin";
import type { Runtime } from "../core/index.ts";
import { configCommand } from "./config.ts";
import { specCommand } from "./spec.ts";

/** Every tool otto registers. Slash command tools are named after their command (otto-config → otto_config). */
export function buildTools(runtime: Runtime): Record<string, ToolDefinition> {
  return {
    otto_config: configCommand(runtime),
    otto_spec: specCommand(runtime),
  };
}
