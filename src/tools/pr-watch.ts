import { tool, type ToolDefinition } from "./tool.ts";
import { formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { watchControllerFor, type WatchController } from "../pr/index.ts";

export const WATCH_ACTIONS = ["start", "stop", "status", "once", "install"] as const;
export type WatchAction = (typeof WATCH_ACTIONS)[number];

/** One watch verb, shared by `/otto-pr watch …` and the typed otto_pr_watch tool. */
export function runWatchAction(
  controller: WatchController,
  action: WatchAction,
  flags: { detach?: boolean; enable?: boolean },
): Promise<string> {
  switch (action) {
    case "start":
      return controller.start({ detach: flags.detach === true });
    case "stop":
      return controller.stop();
    case "status":
      return controller.status();
    case "once":
      return controller.once();
    case "install":
      return controller.install({ enable: flags.enable === true });
  }
}

/** otto_pr_watch: the PR watcher as a typed tool, for agents that manage it themselves. */
export function prWatchTool(runtime: Runtime): ToolDefinition {
  return tool({
    description:
      "Controls otto's PR watcher, which polls every tracked PR (see /otto-pr list) at server.poll_interval: " +
      "`once` runs one cycle now and returns its report; `start` runs it in this OpenCode process (TUI or serve), " +
      "`start` with detach=true in a background `opencode serve`; `stop`; `status` (PID, last and next cycle, per-PR state); " +
      "`install` writes a systemd user unit (enable=true also enables it).",
    args: {
      action: tool.schema.enum(WATCH_ACTIONS).describe("What to do: start, stop, status, once or install."),
      detach: tool.schema
        .boolean()
        .optional()
        .describe("With action=start: run the watcher in a background `opencode serve` that survives this session."),
      enable: tool.schema.boolean().optional().describe("With action=install: also run systemctl --user enable --now."),
    },
    async execute(args) {
      try {
        return await runWatchAction(watchControllerFor(runtime), args.action, args);
      } catch (error) {
        return formatError(error);
      }
    },
  });
}
