import type { Event, Part } from "@opencode-ai/sdk";
import type { Logger } from "../core/log.ts";
import type { OpencodeClient } from "../runtime.ts";

/*
 * In the TUI, an otto slash command's result reaches the user from otto itself: the command's
 * template asks the model to call the tool and answer only "Done.", and when that answer's text is
 * complete (`experimental.text.complete`, OpenCode 1.18) otto puts the tool's output in its place.
 * So the result is drawn where the answer belongs, rendered as markdown (tables as tables), as otto
 * wrote it, and no model turn re-emits it. The model's next turns see its own "Done." again
 * (`experimental.chat.messages.transform`): the output is in its context once, in the tool result.
 * A turn with no text after the tool gets the output as a message the model never reads (`noReply`,
 * `ignored`) once the session is idle. Headless (`opencode run`, which prints the model's text)
 * and `opencode serve` keep the template that has the model repeat the output.
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
  "otto-rules",
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
  /** `experimental.text.complete`: the model's answer after the tool becomes the tool's output. */
  textComplete(input: { sessionID: string }, output: { text: string }): void;
  /** `experimental.chat.messages.transform`: the model reads its own answer, not the output shown in its place. */
  messagesTransform(output: { messages: Array<{ info: { role: string }; parts: Part[] }> }): void;
  /** `event`: on the session's idle, an output no answer took is added to it. */
  onEvent(event: Event): void;
}

/** The model's answer as the template asks for it. */
const DONE = "Done.";
const isDone = (text: string): boolean => /^\s*done\.?\s*$/i.test(text);

/** What the user sees in place of the model's answer: the output, under anything the model said besides "Done.". */
export function shownText(answer: string, output: string): string {
  return isDone(answer) ? output : `${answer.trimEnd()}\n\n${output}`;
}

/**
 * The model's answer back from what was shown (shownText): by the command tool's output just
 * before it, so it holds after a restart too. Pure: changes the parts in place.
 */
export function restoreAnswers(messages: ReadonlyArray<{ info: { role: string }; parts: Part[] }>, tools: ReadonlySet<string>): void {
  let output: string | undefined;
  for (const { info, parts } of messages) {
    for (const part of parts) {
      if (part.type === "tool" && tools.has(part.tool) && part.state.status === "completed") output = part.state.output;
      else if (part.type === "text" && info.role === "assistant" && output !== undefined) {
        if (part.text === output) part.text = DONE;
        else if (part.text.endsWith(`\n\n${output}`)) part.text = part.text.slice(0, -output.length - 2);
        output = undefined;
      } else if (info.role === "user") output = undefined;
    }
  }
}

export function commandOutput(deps: { client: OpencodeClient; log: Logger; commands: ReadonlySet<string> }): CommandOutput {
  const waiting = new Map<string, string>();
  const ready = new Map<string, string>();
  const tools = new Set([...deps.commands].map(commandTool));
  return {
    commandStarted({ command, sessionID }) {
      if (deps.commands.has(command)) waiting.set(sessionID, commandTool(command));
    },
    toolFinished({ tool, sessionID }, output) {
      if (waiting.get(sessionID) !== tool) return;
      waiting.delete(sessionID);
      ready.set(sessionID, output.output);
    },
    textComplete({ sessionID }, output) {
      const text = ready.get(sessionID);
      if (text === undefined) return;
      ready.delete(sessionID);
      output.text = shownText(output.text, text);
    },
    messagesTransform(output) {
      restoreAnswers(output.messages, tools);
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
