import fs from "node:fs";
import path from "node:path";
import type { OpencodeClient } from "@opencode-ai/sdk";
import { DEFAULT_FILES, createRepo, writeFiles, type Repo } from "./git.ts";
import type { ModelServer } from "./model-server.ts";
import { testRoot } from "./dev-home.ts";
import { OPENCODE_BIN, REPO_ROOT, ensureConfigTemplate, isolatedEnv, makeDirs, seedConfigDir, type IsolatedDirs } from "./opencode-env.ts";
import { spawnTracked, stopTracked, type ProcessHandle } from "./processes.ts";

/** Real OpenCode, isolated per workspace, loading otto from this checkout and talking to a scripted model. */

type Json = Record<string, unknown>;

/** The provider id under which the scripted model appears: models are `mock/<id>`. */
export const PROVIDER = "mock";

export interface WorkspaceOptions {
  /** The scripted model (only `baseURL` is used). */
  model: Pick<ModelServer, "baseURL">;
  /** Model ids the provider offers; the first is the default model (default ["m1", "m2"]). */
  models?: string[];
  /** Extra opencode.json keys (agent, permission, command, small_model…), deep-merged over the defaults. */
  config?: Json;
  /** Load the otto plugin from the checkout (default true). */
  plugin?: boolean;
  /** Files of the project's initial commit (default: README.md). */
  files?: Record<string, string>;
  /** Give the project a bare remote `origin` (default false). */
  remote?: boolean;
  /** `.otto/otto.jsonc` in the project's initial commit: a string is written as is (JSONC), an object as JSON. */
  ottoConfig?: string | Json;
  /** `$XDG_CONFIG_HOME/otto/otto.jsonc`. */
  userOttoConfig?: string | Json;
  /** Extra environment for every OpenCode process of this workspace. */
  env?: Record<string, string>;
  /**
   * The folder the workspace's temp folder is made in (default testRoot(), outside /tmp: otto's
   * sandbox replaces /tmp with an empty one, so a home or remote there would be out of sight
   * inside whatever otto hides).
   */
  base?: string;
  /** A home with nothing in it (no ~/.gitconfig, no credentials); default: a developer's home (dev-home.ts). */
  bareHome?: boolean;
  /**
   * Share this workspace's home, XDG folders and opencode.json instead of making new ones (a served
   * OpenCode shared by a file's tests runs with those): only the project is the new workspace's own.
   */
  shareDirsOf?: Workspace;
}

export interface Workspace {
  /** Temp folder holding everything below; removed by cleanup(). */
  root: string;
  /** The project OpenCode runs in: a git repo on `main`. */
  project: string;
  repo: Repo;
  dirs: IsolatedDirs;
  /** The opencode.json in use. It lives in $XDG_CONFIG_HOME/opencode, so the project tree stays clean. */
  configFile: string;
  /** The environment OpenCode processes get (before per-call additions). */
  env: Record<string, string>;
  /** Deep-merges `patch` into opencode.json (takes effect for processes started afterwards). */
  updateConfig(patch: Json): void;
  writeOttoConfig(content: string | Json, scope?: "project" | "user"): string;
  /** Writes files relative to the project. */
  writeFiles(files: Record<string, string>): void;
  readFile(rel: string): string;
  /** OpenCode's own logs ($XDG_DATA_HOME/opencode/log/*.log), oldest first; plugin logs land here too. */
  logs(): string;
  /** Stops every process started for this workspace and removes the temp folder (kept with OTTO_E2E_KEEP=1). */
  cleanup(): Promise<void>;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function baseConfig(options: WorkspaceOptions): Json {
  const models = options.models ?? ["m1", "m2"];
  return {
    $schema: "https://opencode.ai/config.json",
    model: `${PROVIDER}/${models[0] ?? "m1"}`,
    // Without it OpenCode picks a "small model" for titles by its own rules; pin it to the mock.
    small_model: `${PROVIDER}/${models[0] ?? "m1"}`,
    autoupdate: false,
    share: "disabled",
    // OpenCode's undo snapshots (a `git add` of the tree in a git of its own at every step) are
    // about 0.15 CPU-s a model request on these machines, a tenth of what OpenCode spends in the
    // suite; otto never reads them. The hostile tests turn them back on (`HOSTILE_OPENCODE`), as a
    // user's OpenCode has them: that git is a reader of what sandboxed code wrote.
    snapshot: false,
    plugin: options.plugin === false ? [] : [`file://${REPO_ROOT.replace(/\/$/, "")}`],
    provider: {
      [PROVIDER]: {
        npm: "@ai-sdk/openai-compatible",
        name: "Mock",
        options: { baseURL: options.model.baseURL, apiKey: "test-key" },
        models: Object.fromEntries(models.map((id) => [id, { name: id.toUpperCase() }])),
      },
    },
  };
}

const toText = (content: string | Json): string => (typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);

// Workspaces whose processes must die with them.
const owned = new WeakMap<Workspace, Set<ProcessHandle>>();

export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const host = options.shareDirsOf;
  const template = host || options.plugin === false ? undefined : await ensureConfigTemplate();
  const root = fs.mkdtempSync(path.join(options.base ?? testRoot(), "otto-e2e-"));
  try {
    const dirs = host?.dirs ?? makeDirs(root, { bareHome: options.bareHome === true });
    const project = path.join(root, "project");
    // The repo's otto config is part of the initial commit, as in a real repo: the tree starts clean.
    const files = { ...(options.files ?? DEFAULT_FILES) };
    if (options.ottoConfig !== undefined) files[".otto/otto.jsonc"] = toText(options.ottoConfig);
    const repo = await createRepo({ dir: project, files, remote: options.remote ?? false });
    // A developer's clone has no identity of its own: the home's ~/.gitconfig gives it.
    if (!options.bareHome) for (const key of ["user.name", "user.email", "commit.gpgsign"]) await repo.git(["config", "--unset", key]);
    if (template) seedConfigDir(dirs.configHome, template);
    const configFile = host?.configFile ?? path.join(dirs.configHome, "opencode", "opencode.json");
    let config = deepMerge(baseConfig(options), options.config ?? {});
    if (!host) {
      fs.mkdirSync(path.dirname(configFile), { recursive: true });
      fs.writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    }
    // A shared log folder: this workspace's logs are what was written after it was made.
    const logStart = host ? readLogs(dirs).length : 0;

    const ws: Workspace = {
      root,
      project,
      repo,
      dirs,
      configFile,
      env: isolatedEnv(dirs, project, options.env),
      updateConfig(patch) {
        if (host)
          throw new Error("this workspace shares its opencode.json with a served OpenCode; give the test a block without shareServer");
        config = deepMerge(config, patch);
        fs.writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
      },
      writeOttoConfig(content, scope = "project") {
        const file = scope === "project" ? path.join(project, ".otto", "otto.jsonc") : path.join(dirs.configHome, "otto", "otto.jsonc");
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, toText(content));
        return file;
      },
      writeFiles: (files) => writeFiles(project, files),
      readFile: (rel) => fs.readFileSync(path.join(project, rel), "utf8"),
      logs: () => readLogs(dirs).slice(logStart),
      async cleanup() {
        for (const handle of owned.get(ws) ?? []) await stopTracked(handle);
        // OTTO_E2E_KEEP=1 keeps the files (project, logs, OpenCode's db) for a post-mortem.
        if (process.env.OTTO_E2E_KEEP === "1") console.log(`otto e2e: kept workspace ${root}`);
        else fs.rmSync(root, { recursive: true, force: true });
      },
    };
    owned.set(ws, new Set());
    if (options.userOttoConfig !== undefined) ws.writeOttoConfig(options.userOttoConfig, "user");
    return ws;
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

export function readLogs(dirs: IsolatedDirs): string {
  const dir = path.join(dirs.dataHome, "opencode", "log");
  if (!fs.existsSync(dir)) return "";
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
    .join("");
}

/** Ties a process to a workspace so cleanup() stops it; returns the untie function. */
export function track(ws: Workspace, handle: ProcessHandle): () => void {
  owned.get(ws)?.add(handle);
  return () => owned.get(ws)?.delete(handle);
}

// ---------------------------------------------------------------------------------------------
// opencode run / any one-shot command

export interface RunOptions {
  /** Kill it, and everything it started, after this long (default 60 s). */
  timeoutMs?: number;
  /** Extra environment for this call. */
  env?: Record<string, string>;
  /** Working directory (default: the project); PWD follows it. */
  cwd?: string;
  /** Kills the run when aborted, e.g. once the model has seen the request a test waited for. */
  signal?: AbortSignal;
}

export interface RunResult {
  /** undefined when the harness killed it (timeout or signal). */
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** Killed through `signal`. */
  aborted: boolean;
  /** What it ran as; `survivors(process)` is [] by the time this result exists. */
  process: ProcessHandle;
}

/**
 * Runs `opencode <args>` to completion, e.g. `["run", "hello"]` or
 * `["run", "--command", "otto-config", "--", "show"]` (the `--` keeps args that start with `--`
 * away from OpenCode's own parser). `opencode run` exits at the first `session.idle` of its session.
 */
export async function runOpencode(ws: Workspace, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const cwd = options.cwd ?? ws.project;
  const started = Date.now();
  const { subprocess, handle } = spawnTracked(OPENCODE_BIN, args, { cwd, env: { ...ws.env, PWD: cwd, ...options.env }, buffer: true });
  const untrack = track(ws, handle);
  let timedOut = false;
  let aborted = false;
  // A short grace period: a test that gives up on a run wants it gone, not a clean shutdown.
  const timer = setTimeout(() => {
    timedOut = true;
    void stopTracked(handle, 500);
  }, options.timeoutMs ?? 60_000);
  const onAbort = (): void => {
    aborted = true;
    void stopTracked(handle, 500);
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort);
  try {
    const result = await subprocess;
    return {
      exitCode: timedOut || aborted ? undefined : result.exitCode,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
      durationMs: Date.now() - started,
      timedOut,
      aborted,
      process: handle,
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    // The leader is gone; this also kills anything it left behind (backgrounded bash tool commands).
    await stopTracked(handle);
    untrack();
  }
}

// ---------------------------------------------------------------------------------------------
// Plugin diagnostics

/**
 * OpenCode swallows plugin load errors (no log line, no exit code): a broken import only shows as
 * missing agents/commands/tools. This checks that otto's agents are registered and, when not,
 * imports the plugin here to report the real error.
 */
export async function assertPluginLoaded(client: OpencodeClient): Promise<void> {
  const agents = (await client.app.agents({ throwOnError: true })).data;
  if (agents.some((a) => a.name === "otto")) return;
  let reason = "the plugin imported fine here, so OpenCode rejected it for another reason (check its exports)";
  try {
    await import(path.join(REPO_ROOT, "src", "index.ts"));
  } catch (error) {
    reason = error instanceof Error ? error.message : String(error);
  }
  throw new Error(`OpenCode did not load the otto plugin (no 'otto' agent): ${reason}`);
}
