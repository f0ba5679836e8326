import type { Event } from "@opencode-ai/sdk";
import type { Logger } from "../core/log.ts";
import type { OpencodeClient } from "../runtime.ts";

/*
 * In the TUI, an otto slash command's result reaches the user from otto itself: the command's
 * template asks the model to call the tool and answer only "Done.", and once the session is idle
 * otto adds the tool's output to the session as a message the model never reads (`noReply`,
 * `ignored`). So a long table is shown as otto wrote it, and no model turn re-emits it. Headless
 * (`opencode run`, which prints the model's text) and `opencode serve` keep the template that has
 * the model repeat the output.
 */

/** The last line of every otto command template, and what the TUI's templates say instead. */
export const REPEAT_LINE = "Then reply with the tool's output exactly as it is.";
export const TUI_LINE =
  "Then reply with only the word Done. Otto shows the tool's output to the user itself; do not repeat or summarise it.";

/** otto's slash commands (commands/*.md). */
export const OTTO_COMMANDS: ReadonlySet<string> = new Set([
  "otto-agent",
  "otto-build",
  "otto-config",
  "otto-cost",
  "otto-pr",
  "otto-repo",
  "otto-spec",
  "otto-worktree",
  "pr-review",
]);

/** An otto command's tool: `otto-config` → `otto_config`, `pr-review` → `otto_pr_review`. */
export function commandTool(command: string): string {
  const name = command.replace(/-/g, "_");
  return name.startsWith("otto_") ? name : `otto_${name}`;
}

export interface CommandOutput {
  /** `command.execute.before`: the session now waits for this command's tool. */
  commandStarted(input: { command: string; sessionID: string }): void;
  /** `tool.execute.after`: the tool's output, kept when it is the command's. */
  toolFinished(input: { tool: string; sessionID: string }, output: { title: string; output: string }): void;
  /** `event`: on the session's idle, the kept output is added to it. */
  onEvent(event: Event): void;
}

export function commandOutput(deps: { client: OpencodeClient; log: Logger; commands: ReadonlySet<string> }): CommandOutput {
  const waiting = new Map<string, string>();
  const ready = new Map<string, string>();
  return {
    commandStarted({ command, sessionID }) {
      if (deps.commands.has(command)) waiting.set(sessionID, commandTool(command));
    },
    toolFinished({ tool, sessionID }, output) {
      if (waiting.get(sessionID) !== tool) return;
      waiting.delete(sessionID);
      ready.set(sessionID, output.output);
    },
    onEvent(event) {
      if (event.type !== "session.idle") return;
      const sessionID = event.properties.sessionID;
      const text = ready.get(sessionID);
      if (text === undefined) return;
      ready.delete(sessionID);
      deps.client.session.prompt({ path: { id: sessionID }, body: { noReply: true, parts: [{ type: "text", text, ignored: true }] } }).then(
        (result) => {
          if (result.error !== undefined)
            deps.log.log("warn", "otto could not show a command's output", { error: JSON.stringify(result.error) });
        },
        (error: unknown) => deps.log.log("warn", "otto could not show a command's output", { error: String(error) }),
      );
    },
  };
}
