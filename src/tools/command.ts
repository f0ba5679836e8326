import { parseArgs, type ParseArgsConfig } from "node:util";
import { tool, type ToolContext, type ToolDefinition, type ToolResult } from "./tool.ts";
import { OttoError, formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { liveTitle } from "./live-title.ts";
import { splitArgs } from "./split-args.ts";
import { failJob } from "./fail-job.ts";
import { hostKind } from "../core/host-kind.ts";

/**
 * A command that refused or failed: headless (`opencode run`) it exits non-zero, so a script can
 * stop there; served, its tool result says so (`metadata.failed`), for a client of `opencode serve`.
 */
function refused(output: string, title?: string, metadata: Record<string, unknown> = {}): ToolResult {
  if (hostKind() === "run") failJob();
  return { ...(title ? { title } : {}), output, metadata: { ...metadata, failed: true } };
}

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface VerbInput {
  values: Values;
  positionals: string[];
}

export interface CommandContext {
  runtime: Runtime;
  tool: ToolContext;
  /** Shows progress in the tool's title (TUI) while the verb runs. */
  progress(title: string): void;
}

/** A verb's output; `failed`: it reports its partial work, and the command still failed (exits non-zero headless). */
export type CommandResult = string | { title?: string; output: string; metadata?: Record<string, unknown>; failed?: boolean };

export interface Verb {
  /** Words that select this verb, e.g. ["task", "generate"]. */
  path: string[];
  /** Arguments after the verb words, e.g. "[--spec <slug>] <prompt>". */
  args?: string;
  summary: string;
  options?: OptionSpec;
  /** How many positionals the verb takes after its words. */
  positionals?: { min?: number; max?: number };
  run(input: VerbInput, ctx: CommandContext): Promise<CommandResult>;
}

export interface CommandSpec {
  /** The slash command name without the leading slash, e.g. "otto-config". */
  name: string;
  summary: string;
  verbs: Verb[];
  /** An empty command line runs the verb without words instead of showing the usage (/pr-review: the current branch's PR). */
  bareRuns?: boolean;
}

/** The directory a command works in: the tool call's, else the plugin's. */
export const cwdOf = (ctx: CommandContext): string => ctx.tool.directory || ctx.runtime.directory;

/** The git options of a command: the plugin's environment. */
export const gitOf = (runtime: Runtime): { env: Runtime["env"] } => ({ env: runtime.env });

export function toolName(command: string): string {
  return command.replace(/-/g, "_");
}

function verbUsage(command: string, verb: Verb): string {
  return `/${command} ${[...verb.path, verb.args ?? ""].join(" ").trim()}`;
}

export function usage(spec: CommandSpec): string {
  const lines = spec.verbs.map((v) => `  ${verbUsage(spec.name, v).padEnd(48)} ${v.summary}`);
  return [`/${spec.name}: ${spec.summary}`, "", "Usage:", ...lines, "", `Add --help after a verb for its options.`].join("\n");
}

function verbHelp(spec: CommandSpec, verb: Verb): string {
  const options = Object.entries(verb.options ?? {}).map(([name, o]) => {
    const short = o.short ? `-${o.short}, ` : "";
    return `  ${short}--${name}${o.type === "string" ? " <value>" : ""}${o.multiple ? " (repeatable)" : ""}`;
  });
  return [`Usage: ${verbUsage(spec.name, verb)}`, "", verb.summary, ...(options.length ? ["", "Options:", ...options] : [])].join("\n");
}

/** Picks the verb whose words match the longest prefix of argv. */
export function matchVerb(spec: CommandSpec, argv: string[]): { verb: Verb; rest: string[] } | undefined {
  let best: { verb: Verb; rest: string[] } | undefined;
  for (const verb of spec.verbs) {
    const n = verb.path.length;
    if (verb.path.every((word, i) => argv[i] === word) && (!best || n > best.verb.path.length)) {
      best = { verb, rest: argv.slice(n) };
    }
  }
  return best;
}

/** Parses argv for one verb; usage problems become OttoErrors that quote the usage line. */
export function parseVerbArgs(spec: CommandSpec, verb: Verb, rest: string[]): VerbInput {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: verb.options ?? {}, allowPositionals: true, strict: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new OttoError("usage", message, `Usage: ${verbUsage(spec.name, verb)}`);
  }
  const { min = 0, max = 0 } = verb.positionals ?? {};
  const count = parsed.positionals.length;
  if (count < min) {
    throw new OttoError("usage", `Missing argument for '${verb.path.join(" ")}'.`, `Usage: ${verbUsage(spec.name, verb)}`);
  }
  if (count > max) {
    const extra = parsed.positionals.slice(max).join(" ");
    throw new OttoError("usage", `Unexpected argument '${extra}' for '${verb.path.join(" ")}'.`, `Usage: ${verbUsage(spec.name, verb)}`);
  }
  return parsed;
}

function normalise(result: CommandResult): Exclude<CommandResult, string> {
  return typeof result === "string" ? { output: result } : result;
}

/** A verb's words; one without words is named by its required argument (`/pr-review <url>`) or "(none)". */
function verbName(verb: Verb): string {
  if (verb.path.length) return verb.path.join(" ");
  const first = verb.args?.split(" ")[0];
  return first?.startsWith("<") ? first : "(none)";
}

/**
 * One tool per slash command. The command template only passes $ARGUMENTS through, so even a weak
 * model dispatches correctly: all parsing and help happens here, in code.
 */
export function defineCommand(spec: CommandSpec, runtime: Runtime): ToolDefinition {
  const verbs = spec.verbs.map(verbName).join(", ");
  return tool({
    description: `Runs the /${spec.name} command (${spec.summary}). Pass the user's command arguments unchanged in \`args\` (verbs: ${verbs}).`,
    args: {
      args: tool.schema.string().describe(`The raw arguments of /${spec.name}, exactly as the user typed them (may be empty).`),
    },
    async execute({ args }, toolCtx) {
      const title = liveTitle(runtime, toolCtx);
      const ctx: CommandContext = { runtime, tool: toolCtx, progress: (text) => title.set(text) };
      const argv = splitArgs(args ?? "");
      if ((argv.length === 0 && !spec.bareRuns) || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
        return usage(spec);
      }
      const match = argv.length === 0 ? { verb: spec.verbs.find((v) => v.path.length === 0)!, rest: [] } : matchVerb(spec, argv);
      if (!match) {
        return refused(`Error: unknown verb '${argv[0]}' for /${spec.name}.\n\n${usage(spec)}`);
      }
      if (match.rest.includes("--help") || match.rest.includes("-h")) return verbHelp(spec, match.verb);
      try {
        const input = parseVerbArgs(spec, match.verb, match.rest);
        const result = normalise(await match.verb.run(input, ctx));
        await title.flush();
        if (result.failed) return refused(result.output, result.title, result.metadata);
        // The returned title is what OpenCode shows once the tool is done.
        return result.title ? { title: result.title, output: result.output, metadata: result.metadata ?? {} } : result.output;
      } catch (error) {
        await title.flush();
        runtime.log.log("warn", `/${spec.name} ${match.verb.path.join(" ")} failed`, {
          error: error instanceof Error ? error.message : String(error),
        });
        return refused(formatError(error));
      }
    },
  });
}
