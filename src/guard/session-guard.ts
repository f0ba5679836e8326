import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import { redact } from "../core/redact.ts";
import { opencodeAuthSecrets } from "../core/secrets.ts";
import type { Logger } from "../core/log.ts";
import type { SandboxAccess, SandboxMode } from "../sandbox/index.ts";
import type { ControlWatch } from "../workspace/git.ts";
import type { ClassifyContext } from "./classify-command.ts";
import { isGitControlPath } from "./git-paths.ts";
import { configPaths, pathRefusal, resolvedPath } from "./tool-paths.ts";

import { withoutSecretResults } from "./search-results.ts";
import { RepeatedCalls, repeatedCallReason } from "./repeated-calls.ts";

/*
 * One file for one job: the guard's state (which sessions are otto's, what each last ran as, what
 * was counted) and the OpenCode hooks that read it. Each decision it makes lives in a module of its
 * own (classify-command.ts, tool-paths.ts, repeated-calls.ts, git-paths.ts); this file only routes.
 */

/** The sandbox's modules, loaded by the first guarded call: the guard is built at plugin load. */
const sandbox = () => import("../sandbox/index.ts");

/*
 * The guard of one plugin instance: which sessions are otto's, and the two OpenCode hooks that
 * hold them (`shell.env`, `tool.execute.before`). Loading stays cheap: the shell parser and the
 * config loader are imported on the first guarded call.
 */

/** Otto's subagents: a session running as one of them is guarded however it was started (even by the user's `task` tool). */
const OTTO_SUBAGENT = /^otto-/;

/** Tools that write a file named by their arguments. */
const FILE_TOOLS = new Set(["edit", "write", "multiedit", "patch", "apply_patch"]);
/**
 * Agents whose shell is a list of reading commands (agents/otto-reviewer.md). OpenCode matches its
 * permission patterns against the line as it will run, so a line rewritten into the sandbox would
 * match none of them: their lines run as typed, and naming a credential store is refused instead.
 */
const READ_ONLY_AGENTS = new Set(["otto-reviewer"]);

/** Tools that read files or folders named by their arguments. */
const READ_TOOLS = new Set(["read", "glob", "grep", "list"]);
/** Tools after which OpenCode starts a language server (read, write, edit, patch, its `lsp` tool) or a formatter (write, edit, patch) on the file. */
const HOST_RUNNER_TOOLS = new Set(["read", "lsp", ...FILE_TOOLS]);

/** How long a file tool waits for the tree's running shell commands (#quiet). */
const QUIET_WAIT_MS = 120_000;
const QUIET_POLL_MS = 50;
/** Past OpenCode's longest bash timeout: a command this old whose end was never reported is not waited for. */
const STALE_COMMAND_MS = 15 * 60_000;
/** How long the forge hosts and token values read from otto.jsonc are reused. */
const CONFIG_TTL_MS = 60_000;
/** Scripts larger than this are not read (the env layer still holds them). */
const MAX_SCRIPT_BYTES = 256 * 1024;

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

interface ForgeConfig {
  hosts: string[];
  secrets: string[];
  /** otto.jsonc `sandbox`: where a guarded session's shell commands run. */
  sandbox: SandboxMode;
  /** otto.jsonc `sandbox_access`: the network and the paths the sandbox shows beyond its defaults. */
  sandboxAccess?: SandboxAccess;
  /** server.port: where the detached watcher's `opencode serve` listens. */
  serverPort: number;
  /** limits.repeated_tool_calls. */
  repeatedToolCalls: number;
}

/** server.port's default (src/config/schema.ts), used when otto.jsonc cannot be read. */
const DEFAULT_SERVER_PORT = 4097;
/** limits.repeated_tool_calls's default (src/config/schema.ts), used when otto.jsonc cannot be read. */
const DEFAULT_REPEATED_TOOL_CALLS = 5;

export class GuardBlocked extends Error {
  override name = "GuardBlocked";
}

export class SessionGuard {
  readonly #sessions = new Set<string>();
  /** The agent each guarded session last ran as (chat.message / chat.params). */
  readonly #agents = new Map<string, string>();
  readonly #config = new Map<string, { at: number; value: Promise<ForgeConfig> }>();
  readonly #repeated = new RepeatedCalls();
  /** Why otto stopped a session (the repeated-tool-call stop), until the session is deleted. */
  readonly #stopped = new Map<string, string>();
  /** A sandboxed shell call's look at the tree's control paths before it ran, by call (control-watch.ts). */
  readonly #watches = new Map<string, { sessionID: string; watch: ControlWatch }>();
  /** The same, taken at a session's first sandboxed call: looked at again when the session ends or goes idle. */
  readonly #sessionWatches = new Map<string, ControlWatch[]>();
  #emptyDir: string | undefined;
  #saidNoSandbox = false;
  /** The guarded shell commands running now (by tool call id), with when each started: a file tool waits for them. */
  readonly #running = new Map<string, { at: number; sessionID: string }>();
  /** The settings of this OpenCode instance that run programs on the files a tool touched (`lsp`, `formatter`), when on. */
  #hostRunners: string[] = [];

  constructor(readonly deps: GuardDeps) {}

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

  /**
   * The `config` hook: whether this OpenCode instance runs language servers or formatters. They
   * start outside any sandbox, on a file a tool read or wrote, programs the tree provides
   * (`node_modules/.bin/oxlint`, `node_modules/typescript/lib/tsserver.js`, a formatter's binary),
   * which a session's sandboxed shell can plant. The setting is the instance's, shared with the
   * user's own sessions in the same folder, so otto does not change it: a guarded session's file
   * tools are refused while it is on, with the way out.
   */
  noteHostConfig(config: { lsp?: unknown; formatter?: unknown }): void {
    this.#hostRunners = (["lsp", "formatter"] as const).filter((key) => isOn(config[key]));
  }

  /**
   * `session.idle`, `session.error`, `session.deleted`: what the session's sandboxed commands left
   * since its first one (a call whose after-hook never came, a process that outlived its command
   * under Seatbelt) is settled as after each command. Never throws.
   */
  async sessionEnded(sessionID: string): Promise<void> {
    // Its turn is over: none of its shell commands still runs.
    for (const [id, running] of this.#running) if (running.sessionID === sessionID) this.#running.delete(id);
    // A call whose after-hook never came is covered by the session's first look, taken before it.
    for (const [id, pending] of this.#watches) if (pending.sessionID === sessionID) this.#watches.delete(id);
    const watches = this.#sessionWatches.get(sessionID);
    if (!watches) return;
    this.#sessionWatches.delete(sessionID);
    for (const watch of watches) await this.#settle(watch, true);
  }

  /** Quarantines what a sandboxed command left, puts moved refs back (control-watch.ts); the line saying so, if any. */
  async #settle(watch: ControlWatch, pathsOnly = false): Promise<string | undefined> {
    try {
      const { settleControls, settledLine, runGit } = await import("../workspace/git.ts");
      const env = this.deps.env;
      const line = settledLine(await settleControls(watch, env, (args, options) => runGit(args, { ...options, env }), { pathsOnly }));
      if (line) this.deps.log.log("warn", `otto guard: in ${watch.root}, ${line}`);
      return line;
    } catch (error) {
      this.deps.log.log("warn", "otto guard: could not look at a sandboxed command's tree again", {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  /** `shell.env`: a guarded session's shell gets an environment in which no push can succeed. */
  async shellEnv(input: { cwd: string; sessionID?: string }, output: { env: Record<string, string> }): Promise<void> {
    if (!this.isGuarded(input.sessionID)) return;
    const env = { ...this.deps.env, ...output.env };
    const { pushBlockingEnv } = await sandbox();
    try {
      const forge = await this.#forge(input.cwd);
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
    if (this.#hostRunners.length > 0 && HOST_RUNNER_TOOLS.has(input.tool)) throw hostRunnersOn(input.tool, this.#hostRunners);
    if (FILE_TOOLS.has(input.tool) || READ_TOOLS.has(input.tool)) await this.#quiet(input.tool);
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
      if (input.callID) this.#running.set(input.callID, { at: this.#now(), sessionID: input.sessionID });
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
    if (input.callID) this.#running.delete(input.callID);
    const watch = input.callID !== undefined ? this.#watches.get(input.callID)?.watch : undefined;
    if (watch && input.callID !== undefined) {
      this.#watches.delete(input.callID);
      const line = await this.#settle(watch);
      // The session reads what otto undid, so it does not try again in vain.
      if (line && typeof output.output === "string") output.output = `${output.output}\n${line}`;
    }
    if (!this.isGuarded(input.sessionID) || typeof output.output !== "string" || output.output === "") return;
    if (input.tool === "grep" || input.tool === "glob") {
      // A search shows no file the read tool may not open (search-results.ts).
      const { isSecretName } = await sandbox();
      output.output = withoutSecretResults(input.tool, String(output.output), isSecretName);
    }
    const forge = await this.#forge(this.deps.directory).catch(() => undefined);
    const secrets = [...(this.deps.secrets?.() ?? []), ...(forge?.secrets ?? []), ...opencodeAuthSecrets(this.deps.env)];
    output.output = redact(String(output.output), secrets);
  }

  /**
   * A tool call ended as OpenCode reports it (`message.part.updated`, completed or error). A call
   * denied at its permission ask or failed before it ran gets no after-hook, and must not hold up
   * the file tools' wait until it counts as stale.
   */
  toolEnded(callID: string): void {
    this.#running.delete(callID);
  }

  /**
   * Waits until no guarded shell command of this instance runs. A file tool is judged by where its
   * path resolves, then OpenCode opens it: a sandboxed process alive in between could turn a folder
   * on the way into a link. Sandboxed processes live only while their command runs (bubblewrap's
   * PID namespace ends with it), so with none running nothing can flip the path. Bounded: a
   * command running past the wait refuses the tool; one older than the bash tool's longest
   * timeout is taken as gone (its end was not reported).
   */
  async #quiet(tool: string): Promise<void> {
    const started = this.#now();
    for (;;) {
      const now = this.#now();
      for (const [id, { at }] of this.#running) if (now - at > STALE_COMMAND_MS) this.#running.delete(id);
      if (this.#running.size === 0) return;
      if (now - started > QUIET_WAIT_MS)
        throw blocked(
          `${tool} while a shell command of this session's tree is still running (wait for it to end, then call ${tool} again)`,
        );
      await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
    }
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
    if (count < (await this.#forge(this.deps.directory)).repeatedToolCalls) return;
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
    const workdir =
      typeof args.workdir === "string" && args.workdir !== "" ? path.resolve(this.deps.directory, args.workdir) : this.deps.directory;
    if (isGitControlPath(workdir) || workdir.split(path.sep).includes(".git"))
      throw blocked(`running commands inside a git directory (${workdir})`);
    let reason: string | undefined;
    try {
      const { classifyCommand } = await import("./classify-command.ts");
      const [forge, gitAliases] = await Promise.all([this.#forge(workdir), aliasesOf(workdir, this.deps.env)]);
      const ctx: ClassifyContext = {
        forgeHosts: forge.hosts,
        localServers: { urls: this.deps.serverUrl ? [this.deps.serverUrl] : [], ports: [forge.serverPort] },
        gitAliases,
        readScript: (file) => readScript(workdir, file),
      };
      const verdict = classifyCommand(command, ctx);
      reason = verdict.allowed ? undefined : verdict.reason;
      if (!reason && agent !== undefined && READ_ONLY_AGENTS.has(agent)) reason = await credentialWords(command, this.deps.env);
      else if (!reason) args.command = await this.#sandboxed(command, workdir, forge.sandbox, call, forge.sandboxAccess);
    } catch (error) {
      // Failing closed: a guarded command otto could not check does not run.
      reason = `a command otto could not check (${error instanceof Error ? error.message : String(error)})`;
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
    const [{ planCommand, sandboxedLine }, { treePaths, watchControls }] = await Promise.all([sandbox(), import("../workspace/git.ts")]);
    const tree = await treePaths(workdir, mode);
    const plan = planCommand({ mode, cwd: workdir, tree, env: this.deps.env, ...(access ? { access } : {}) }, command);
    if (plan.sandbox !== "none") {
      const watch = watchControls(tree);
      if (call.callID !== undefined) this.#watches.set(call.callID, { sessionID: call.sessionID, watch });
      const session = this.#sessionWatches.get(call.sessionID) ?? [];
      if (!session.some((w) => w.root === watch.root)) this.#sessionWatches.set(call.sessionID, [...session, watch]);
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

  /** Forge hosts and token values of otto's config for `directory`; never throws. */
  #forge(directory: string): Promise<ForgeConfig> {
    const now = (this.deps.now ?? Date.now)();
    const cached = this.#config.get(directory);
    if (cached && now - cached.at < CONFIG_TTL_MS) return cached.value;
    const value = import("../config/index.ts")
      .then(({ loadConfig }) => loadConfig({ directory, env: this.deps.env }))
      .then(({ config, secrets }) => ({
        hosts: forgeHosts(config.pr.providers),
        secrets,
        sandbox: config.sandbox,
        sandboxAccess: config.sandbox_access,
        serverPort: config.server.port,
        repeatedToolCalls: config.limits.repeated_tool_calls,
      }))
      .catch((error: unknown) => {
        // A broken otto.jsonc must not stop a session's shell: the built-in hosts and the token
        // variables by name still apply.
        this.deps.log.log("warn", "otto guard: could not read otto's config; using the defaults", {
          error: error instanceof Error ? error.message : String(error),
        });
        return {
          hosts: [],
          secrets: [],
          sandbox: "auto" as const,
          serverPort: DEFAULT_SERVER_PORT,
          repeatedToolCalls: DEFAULT_REPEATED_TOOL_CALLS,
        };
      });
    this.#config.set(directory, { at: now, value });
    return value;
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

function blocked(reason: string): GuardBlocked {
  return new GuardBlocked(
    `Otto blocked this: ${reason}. Sessions otto runs cannot push, merge, call the forge, or change the checkout's git configuration, hooks or the environment otto set. ` +
      "Otto pushes for you after its checks pass: commit your work (if your task says to) and stop.",
  );
}

/** The real path of `file`, spelled from the tree's own path when it lies in the tree (the session's records keep that spelling). */
function judgedPath(file: string, tree: string): string {
  const real = resolvedPath(path.resolve(tree, file));
  const rel = path.relative(resolvedPath(tree), real);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel)) ? path.join(tree, rel) : real;
}

/** `lsp: true`, or an object of servers (OpenCode 1.18: off when absent or false). */
function isOn(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

function hostRunnersOn(tool: string, keys: readonly string[]): GuardBlocked {
  const named = keys.map((k) => `"${k}"`).join(" and ");
  return new GuardBlocked(
    `Otto blocked this: ${tool} while OpenCode's ${named} ${keys.length > 1 ? "are" : "is"} on. OpenCode runs language servers and formatters ` +
      "outside otto's sandbox, on the file a tool touched, with programs from the project's tree (node_modules/.bin), which a session's shell can replace. " +
      `To run otto's sessions, set ${keys.map((k) => `"${k}": false`).join(" and ")} in the OpenCode configuration of this folder (opencode.json) or your global one, and restart OpenCode.`,
  );
}

function forgeHosts(providers: { github: { api_url: string; hosts: string[] }; ado: { base_url: string } }): string[] {
  const hosts = [...providers.github.hosts];
  for (const url of [providers.github.api_url, providers.ado.base_url]) {
    try {
      hosts.push(new URL(url).hostname);
    } catch {
      // The schema checked it; nothing to add otherwise.
    }
  }
  return hosts.map((h) => h.toLowerCase());
}

/** The file paths a file tool's arguments name (edit/write: filePath; patches: their file headers). */
export function filesOf(args: Record<string, unknown>): string[] {
  const files: string[] = [];
  for (const key of ["filePath", "file_path", "path"]) {
    const value = args[key];
    if (typeof value === "string") files.push(value);
  }
  for (const key of ["patchText", "patch", "input"]) {
    const text = args[key];
    if (typeof text !== "string") continue;
    // apply_patch headers, with or without a space after the colon (OpenCode takes both), as written.
    for (const match of text.matchAll(/^\*\*\* (?:(?:Add|Update|Delete) File|Move to):[ \t]*(.+)$/gm)) {
      if (match[1]?.trim()) files.push(match[1].trim());
    }
    // Unified diff headers: as written, and without git's a/ b/ prefix (a tool may apply either).
    for (const match of text.matchAll(/^(?:\+\+\+|---)[ \t]+(.+)$/gm)) {
      const file = match[1]?.trim() ?? "";
      if (file === "" || file === "/dev/null") continue;
      files.push(file);
      if (/^[ab]\//.test(file)) files.push(file.slice(2));
    }
  }
  return files;
}

/** Why a reading command may not run: it names a credential store (as a path, `~/…` or `$HOME/…`); undefined when it does not. */
async function credentialWords(command: string, env: Env): Promise<string | undefined> {
  const { credentialPaths } = await sandbox();
  const { home } = xdgPaths(env);
  for (const store of credentialPaths(env)) {
    const spellings = [
      store,
      ...(store.startsWith(`${home}/`)
        ? [`~${store.slice(home.length)}`, `$HOME${store.slice(home.length)}`, `\${HOME}${store.slice(home.length)}`]
        : []),
    ];
    const named = spellings.find((s) => command.includes(s));
    if (named) return `reading ${named}, where credentials live`;
  }
  return undefined;
}

async function aliasesOf(cwd: string, env: Env): Promise<Record<string, string>> {
  const { runGit } = await import("../workspace/git.ts");
  const result = await runGit(["config", "-z", "--get-regexp", "^alias\\."], { cwd, env });
  const aliases: Record<string, string> = {};
  if (result.exitCode !== 0) return aliases;
  for (const entry of result.stdout.split("\0")) {
    const newline = entry.indexOf("\n");
    if (newline < 0) continue;
    aliases[entry.slice("alias.".length, newline).toLowerCase()] = entry.slice(newline + 1);
  }
  return aliases;
}

function readScript(cwd: string, file: string): string | undefined {
  try {
    const full = path.resolve(cwd, file);
    const stat = fs.statSync(full);
    if (!stat.isFile() || stat.size > MAX_SCRIPT_BYTES) return undefined;
    return fs.readFileSync(full, "utf8");
  } catch {
    return undefined;
  }
}
