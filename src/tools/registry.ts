import type { ToolDefinition } from "@opencode-ai/plugin";
import type { Runtime } from "../runtime.ts";
import { agentCommand } from "./agent.ts";
import { buildCommand } from "./build.ts";
import { configCommand } from "./config.ts";
import { costCommand } from "./cost.ts";
import { crewTools } from "./crew.ts";
import { prCommand } from "./pr.ts";
import { prCreateTool } from "./pr-create.ts";
import { prReviewCommand } from "./pr-review.ts";
import { prWatchTool } from "./pr-watch.ts";
import { repoCommand } from "./repo.ts";
import { rulesCommand } from "./rules.ts";
import { specCommand } from "./spec.ts";
import { specExecuteTool } from "./spec-execute.ts";
import { worktreeCommand } from "./worktree.ts";

/** Every tool otto registers. Slash command tools are named after their command (otto-config → otto_config). */
export function buildTools(runtime: Runtime): Record<string, ToolDefinition> {
  return {
    otto_config: configCommand(runtime),
    otto_spec: specCommand(runtime),
    otto_pr: prCommand(runtime),
    otto_pr_create: prCreateTool(runtime),
    otto_pr_watch: prWatchTool(runtime),
    otto_pr_review: prReviewCommand(runtime),
    otto_spec_execute: specExecuteTool(runtime),
    otto_repo: repoCommand(runtime),
    otto_worktree: worktreeCommand(runtime),
    otto_agent: agentCommand(runtime),
    otto_build: buildCommand(runtime),
    otto_cost: costCommand(runtime),
    otto_rules: rulesCommand(runtime),
    // Offered only in crew agents' sessions (see src/tools/crew.ts).
    ...crewTools(runtime),
  };
}
