import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import { errorText } from "../core/errors.ts";
import { redact } from "../core/redact.ts";
import { opencodeAuthSecrets } from "../core/secrets.ts";
import type { Logger } from "../core/log.ts";
import type { SandboxAccess, SandboxMode } from "../sandbox/index.ts";
import type { ClassifyContext } from "./classify-command.ts";
import { isGitControlPath } from "./git-paths.ts";
import { configPaths, pathRefusal, resolvedPath, workdirRefusal } from "./tool-paths.ts";
import { withoutSecretResults } from "./search-results.ts";
import { RepeatedCalls, repeatedCallReason } from "./repeated-calls.ts";
import { GuardBlocked, blocked } from "./blocked.ts";
import { RunningCommands } from "./running-commands.ts";
import { ControlWatches, settleWith } from "./control-settle.ts";
import { FILE_TOOLS, hostRunnerRefusal, hostRunnersOf } from "./host-runners.ts";
import { GuardConfig } from "./guard-config.ts";
import { aliasesOf, credentialWords, filesOf, judgedPath, readScript } from "./tool-args.ts";

export { GuardBlocked } from "./blocked.ts";
export { filesOf } from "./tool-args.ts";

/*
 * One file for one job: the guard's state (which sessions are otto's, what each last ran as) and
 * the OpenCode hooks that read it. Each decision it makes lives in a module of its own
 * (classify-command.ts, tool-paths.ts, repeated-calls.ts, git-paths.ts, host-runners.ts), and so
 * does each piece of state it keeps (running-commands.ts, control-settle.ts, guard-config.ts): this
 * file only routes.
 */

/** The workspace's git, loaded on the first guarded call (its barrel is large). */
const workspaceGit = () => import("../workspace/git.ts");

/** The sandbox's modules, loaded by the first guarded call: the guard is built at plugin load. */
const sandbox = () => import("../sandbox/index.ts");

/*
 * The guard of one plugin instance: which sessions are otto's, and the two OpenCode hooks that
 * hold them (`shell.env`, `tool.execute.before`). Loading stays cheap: the shell parser and the
 * config loader are imported on the first guarded call.
 */

/** Otto's subagents: a session running as one of them is guarded however it was started (even by the user's `task` tool). */
const OTTO_SUBAGENT = /^otto-/;

/**
 * Agents whose shell is a list of reading commands (agents/otto-reviewer.md). OpenCode matches its
 * permission patterns against the line as it will run, so a line rewritten into the sandbox would
 * match none of them: their lines run as typed, and naming a credential store is refused instead.
 */
const READ_ONLY_AGENTS = new Set(["otto-reviewer"]);

/** Tools that read files or folders named by their arguments. */
const READ_TOOLS = new Set(["read", "glob", "grep", "list"]);

export interface GuardDeps {
  /** The directory of this plugin instance (where the bash tool runs without a workdir). */
  directory: string;
  env: Env;
  log: Logger;
  /** The URL of the OpenCode server this plugin instance runs in (PluginInput.serverUrl). */
  serverUrl?: string;
  now?: () => number;
  /** The secrets this plugin instance knows (runtime's KnownSecrets): redacted from guarded tool results. */
  secrets?: () => string[];
  /** Aborts a session's running turn (the repeated-tool-call stop); OpenCode's `session.abort`. */
  abort?: (sessionID: string) => Promise<unknown>;
}

export class SessionGuard {
  readonly #sessions = new Set<string>();
  /** The agent each guarded session last ran as (chat.message / chat.params). */
  readonly #agents = new Map<string, string>();
  readonly #config: GuardConfig;
  readonly #repeated = new RepeatedCalls();
  /** Why otto stopped a session (the repeated-tool-call stop), until the session is deleted. */
  readonly #stopped = new Map<string, string>();
  /** The looks at the tree's control paths before sandboxed shell calls ran (control-settle.ts). */
  readonly #watches: ControlWatches;
  #emptyDir: string | undefined;
  #saidNoSandbox = false;
  /** The guarded shell commands running now: a file tool waits for them (running-commands.ts). */
  readonly #running: RunningCommands;
  /** The settings of this OpenCode instance that run programs on the files a tool touched (`lsp`, `formatter`), when on. */
  #hostRunners: string[] = [];

  constructor(readonly deps: GuardDeps) {
    const now = () => this.#now();
    this.#config = new GuardConfig({ env: deps.env, log: deps.log, now });
    this.#running = new RunningCommands({ now });
    this.#watches = new ControlWatches(settleWith({ env: deps.env, log: deps.log, load: workspaceGit }));
  }

  /** A session otto created (SessionRunner, the crew): guarded from its first tool call. */
  track(sessionID: string): void {
    this.#sessions.add(sessionID);
  }

  /** From `chat.message` / `chat.params`: a session running one of otto's subagents is guarded. */
  noteAgent(sessionID: string, agent: string | undefined): void {
    if (agent && OTTO_SUBAGENT.test(agent)) this.#sessions.add(sessionID);
    if (agent) this.#agents.set(sessionID, agent);
  }

  /** `session.created`: a session started from a guarded one (a subagent of its `task` tool) is guarded too. */
  noteSession(sessionID: string, parentID: string | undefined): void {
    if (parentID && this.#sessions.has(parentID)) this.#sessions.add(sessionID);
  }

  isGuarded(sessionID: string | undefined): boolean {
    return sessionID !== undefined && this.#sessions.has(sessionID);
  }

  /**
   * Why otto stopped this session, when it did: the session layer turns the aborted turn into an
   * error with this reason (passed to the runner as `stopReason`, so src/session needs no guard).
   */
  stopReason(sessionID: string): string | undefined {
    return this.#stopped.get(sessionID);
  }

  /** `session.deleted`: what the guard counted for the session goes. */
  forget(sessionID: string): void {
    void this.sessionEnded(sessionID);
    this.#repeated.forget(sessionID);
    this.#stopped.delete(sessionID);
  }

  /** The `config` hook: whether this OpenCode instance runs language servers or formatters (host-runners.ts). */
  noteHostConfig(config: { lsp?: unknown; formatter?: unknown }): void {
    this.#hostRunners = hostRunnersOf(config);
  }

  /**
   * `session.idle`, `session.error`, `session.deleted`: what the session's sandboxed commands left
   * since its first one (a call whose after-hook never came, a process that outlived its command
   * under Seatbelt) is settled as after each command. Never throws.
   */
  async sessionEnded(sessionID: string): Promise<void> {
    // Its turn is over: none of its shell commands still runs.
    this.#running.sessionEnded(sessionID);
    await this.#watches.sessionEnded(sessionID);
  }

  /** `shell.env`: a guarded session's shell gets an environment in which no push can succeed. */
  async shellEnv(input: { cwd: string; sessionID?: string }, output: { env: Record<string, string> }): Promise<void> {
    if (!this.isGuarded(input.sessionID)) return;
    const env = { ...this.deps.env, ...output.env };
    const { pushBlockingEnv } = await sandbox();
    try {
      const forge = await this.#config.of(input.cwd);
      Object.assign(output.env, pushBlockingEnv({ env, secrets: forge.secrets, emptyConfigDir: this.#emptyConfigDir() }));
    } catch {
      // Never fail the shell: without the config's token values, the rest of the environment holds.
      Object.assign(output.env, pushBlockingEnv({ env }));
    }
  }

  /** `tool.execute.before`: throws (the model reads the message) when a guarded session's call would push, call a forge (OpenCode's own server too) or touch git's control files. */
  async beforeTool(input: { tool: string; sessionID: string; callID?: string }, output: { args: unknown }): Promise<void> {
    if (!this.isGuarded(input.sessionID)) return;
    const args = (output.args ?? {}) as Record<string, unknown>;
    // Counted first, on the arguments as the model wrote them (the bash guard rewrites them), and
    // whether or not another guard refuses the call: a model retrying a refused push loops too.
    await this.#countCall(input.tool, input.sessionID, args);
    const hostRunners = hostRunnerRefusal(input.tool, this.#hostRunners);
    if (hostRunners) throw hostRunners;
    if (FILE_TOOLS.has(input.tool) || READ_TOOLS.has(input.tool)) await this.#running.quiet(input.tool);
    if (FILE_TOOLS.has(input.tool) || READ_TOOLS.has(input.tool)) {
      // File tools run in OpenCode's process, outside any sandbox, and follow links: judged by where each path resolves (tool-paths.ts).
      const { credentialPaths, isSecretName } = await sandbox();
      const context = {
        secretName: isSecretName,
        tree: this.deps.directory,
        hidden: credentialPaths(this.deps.env),
        config: configPaths(this.deps.env),
        write: FILE_TOOLS.has(input.tool),
      };
      for (const file of filesOf(args)) {
        // Judged as OpenCode opens it: relative to the session's directory, `~` never expanded
        // (OpenCode's tools open `~/x` as `<tree>/~/x`, which a sandboxed `ln -s "$HOME" '~'` makes the home).
        const refusal = pathRefusal(file, context, file);
        if (refusal) throw blocked(`${input.tool} on ${refusal}`);
      }
      // OpenCode opens the path otto judged, not a spelling a link could turn elsewhere meanwhile.
      for (const key of ["filePath", "file_path", "path"]) {
        const value = args[key];
        if (typeof value === "string" && value !== "") args[key] = judgedPath(value, this.deps.directory);
      }
    }
    if (input.tool === "bash") {
      await this.#bash(args, this.#agents.get(input.sessionID), input);
      if (input.callID) this.#running.started(input.callID, input.sessionID);
      return;
    }
    if (FILE_TOOLS.has(input.tool)) {
      const file = filesOf(args).find(isGitControlPath);
      if (file) throw blocked(`${input.tool} on ${file}`);
    }
  }

  /**
   * `tool.execute.after`: what a guarded session's tool shows the model passes through the same
   * redaction as everything otto writes, and a search's results leave out the secret-named files the
   * read tool may not open. A file tool or a shell may still reach a secret otto does
   * not hide (a key pasted in a project file); the known ones (the environment's, otto.jsonc's
   * tokens, OpenCode's auth store) never reach the model as they are.
   */
  async afterTool(input: { tool: string; sessionID: string; callID?: string }, output: { output?: unknown }): Promise<void> {
    if (input.callID) {
      this.#running.ended(input.callID);
      const line = await this.#watches.afterCall(input.callID);
      // The session reads what otto undid, so it does not try again in vain.
      if (line && typeof output.output === "string") output.output = `${output.output}\n${line}`;
    }
    if (!this.isGuarded(input.sessionID) || typeof output.output !== "string" || output.output === "") return;
    if (input.tool === "grep" || input.tool === "glob") {
      // A search shows no file the read tool may not open (search-results.ts).
      const { isSecretName } = await sandbox();
      output.output = withoutSecretResults(input.tool, String(output.output), isSecretName);
    }
    const forge = await this.#config.of(this.deps.directory).catch(() => undefined);
    const secrets = [...(this.deps.secrets?.() ?? []), ...(forge?.secrets ?? []), ...opencodeAuthSecrets(this.deps.env)];
    output.output = redact(String(output.output), secrets);
  }

  /**
   * A tool call ended as OpenCode reports it (`message.part.updated`, completed or error). A call
   * denied at its permission ask or failed before it ran gets no after-hook, and must not hold up
   * the file tools' wait until it counts as stale.
   */
  toolEnded(callID: string): void {
    this.#running.ended(callID);
  }

  #now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /**
   * The repeated-tool-call stop (repeated-calls.ts): the call that reaches limits.repeated_tool_calls
   * is refused, and the session is aborted so the model cannot go on around the loop. The reason is
   * kept for the session layer before the abort is sent.
   */
  async #countCall(tool: string, sessionID: string, args: Record<string, unknown>): Promise<void> {
    const count = this.#repeated.note(sessionID, tool, args);
    // The config is read only for a call the session made before (the limit is at least 2).
    if (count < 2) return;
    if (count < (await this.#config.of(this.deps.directory)).repeatedToolCalls) return;
    // A later turn of the session (a crew agent woken again) starts with clean counts.
    this.#repeated.forget(sessionID);
    const reason = repeatedCallReason(tool, args, count);
    this.#stopped.set(sessionID, reason);
    this.deps.log.log("warn", `otto: ${reason} (limits.repeated_tool_calls); aborting session ${sessionID}`);
    this.deps.abort?.(sessionID).catch((error: unknown) => {
      this.deps.log.log("warn", `otto: could not abort session ${sessionID}`, {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    throw new GuardBlocked(`Otto ${reason}, and ends this session: the same call gives the same result. Stop here.`);
  }

  async #bash(args: Record<string, unknown>, agent: string | undefined, call: { sessionID: string; callID?: string }): Promise<void> {
    const command = typeof args.command === "string" ? args.command : "";
    const spelled =
      typeof args.workdir === "string" && args.workdir !== "" ? path.resolve(this.deps.directory, args.workdir) : this.deps.directory;
    // Judged by where it resolves, as the file tools' paths are: a link the sandboxed shell made
    // (`ln -s ~ h`, workdir `h`) would make the home the sandbox's writable tree.
    const workdir = resolvedPath(spelled);
    for (const at of [spelled, workdir])
      if (isGitControlPath(at) || at.split(path.sep).includes(".git")) throw blocked(`running commands inside a git directory (${at})`);
    const outside = workdirRefusal(spelled, workdir, this.deps.directory);
    if (outside) throw blocked(outside);
    if (typeof args.workdir === "string" && args.workdir !== "") args.workdir = workdir;
    let reason: string | undefined;
    try {
      const { classifyCommand } = await import("./classify-command.ts");
      const { runGit } = await workspaceGit();
      const [forge, gitAliases] = await Promise.all([this.#config.of(workdir), aliasesOf(workdir, this.deps.env, runGit)]);
      const ctx: ClassifyContext = {
        forgeHosts: forge.hosts,
        localServers: { urls: this.deps.serverUrl ? [this.deps.serverUrl] : [], ports: [forge.serverPort] },
        gitAliases,
        readScript: (file) => readScript(workdir, file),
      };
      const verdict = classifyCommand(command, ctx);
      reason = verdict.allowed ? undefined : verdict.reason;
      if (!reason && agent !== undefined && READ_ONLY_AGENTS.has(agent))
        reason = credentialWords(command, this.deps.env, (await sandbox()).credentialPaths(this.deps.env));
      else if (!reason) args.command = await this.#sandboxed(command, workdir, forge.sandbox, call, forge.sandboxAccess);
    } catch (error) {
      // Failing closed: a guarded command otto could not check does not run.
      reason = `a command otto could not check (${errorText(error)})`;
    }
    if (reason) {
      this.deps.log.log("info", "otto guard: refused a session's command", { reason });
      throw blocked(reason);
    }
  }

  /**
   * The line as it runs: inside the sandbox when the config and the machine allow (the launcher
   * holds the sandbox's arguments), as typed otherwise. Throws sandbox_required, which refuses the
   * command, when the config demands a sandbox this machine lacks.
   */
  async #sandboxed(
    command: string,
    workdir: string,
    mode: SandboxMode,
    call: { sessionID: string; callID?: string },
    access?: SandboxAccess,
  ): Promise<string> {
    const [{ planCommand, sandboxedLine }, { treePaths, watchControls }] = await Promise.all([sandbox(), workspaceGit()]);
    const tree = await treePaths(workdir, mode);
    const plan = planCommand({ mode, cwd: workdir, tree, env: this.deps.env, ...(access ? { access } : {}) }, command);
    if (plan.sandbox !== "none") {
      this.#watches.noted(call, watchControls(tree, { nested: !this.#watches.seen(call.sessionID, tree.root) }));
      return sandboxedLine(plan, this.deps.env);
    }
    if (mode !== "off" && !this.#saidNoSandbox) {
      this.#saidNoSandbox = true;
      this.deps.log.log(
        "warn",
        `otto: no sandbox for its sessions' commands (${plan.reason}); the environment and command guards still hold. /otto-config show says which sandbox is active.`,
      );
    }
    return command;
  }

  /** An empty directory for GH_CONFIG_DIR / AZURE_CONFIG_DIR: no stored CLI login in a session. */
  #emptyConfigDir(): string | undefined {
    if (this.#emptyDir) return this.#emptyDir;
    try {
      const dir = path.join(xdgPaths(this.deps.env).ottoDataDir, "guard", "no-forge-login");
      fs.mkdirSync(dir, { recursive: true });
      return (this.#emptyDir = dir);
    } catch {
      return undefined;
    }
  }
}
