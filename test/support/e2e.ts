import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createOpencodeClient } from "@opencode-ai/sdk";
import { afterAll, afterEach, beforeAll, onTestFailed } from "vitest";
import { DEV_SECRETS } from "./dev-home.ts";
import { gitEnv } from "./git.ts";
import { startModelServer, type ModelServer, type ModelServerOptions } from "./model-server.ts";
import { createWorkspace, runOpencode, type RunOptions, type RunResult, type Workspace, type WorkspaceOptions } from "./opencode.ts";
import { keepForWorker, survivors } from "./processes.ts";
import { runThroughServer } from "./sdk-run.ts";
import { serversDirOf } from "./opencode-env.ts";
import { serveView, startServe, type Serve, type ServeOptions } from "./serve.ts";

/**
 * The usual shape of an e2e test file, as one call inside a `describe`: one scripted model for the
 * block, workspaces and servers that die after each test, and on failure a dump of what the model
 * was asked and what OpenCode logged (captured before cleanup, printed by onTestFailed).
 */
export interface E2E {
  /** Shared by the block's tests; reset (script, records, fallbacks) after each test. */
  readonly model: ModelServer;
  /** A workspace wired to `model`, removed after the current test. */
  workspace(options?: Omit<WorkspaceOptions, "model">): Promise<Workspace>;
  /** `opencode serve` in `ws`, closed after the current test. */
  serve(ws: Workspace, options?: ServeOptions): Promise<Serve>;
  /**
   * runOpencode, with its output kept for the failure dump. With `shareServer`, `opencode run` is
   * done through the block's one served OpenCode (test/support/sdk-run.ts).
   */
  run(ws: Workspace, args: string[], options?: RunOptions): Promise<RunResult>;
}

export interface UseE2EOptions {
  /**
   * One `opencode serve` for the block, started with its first workspace, or the worker's own from
   * an earlier block or file with the same options (see `Shared` below). Every workspace of the block shares the server's home, XDG folders and opencode.json (only
   * its project is its own), so each must ask for the same options that live there (OpenCode config,
   * models, plugin, env, base): `workspace()` refuses others. A workspace's `userOttoConfig` is
   * written to the shared user config when it is made. `run(ws, ["run", …])` goes through the
   * server's API in the workspace's project (test/support/sdk-run.ts), `serve(ws)` is the shared
   * server as that project sees it, and after each test the test's projects are disposed in the
   * server and otto's user folders (config, data, cache, state) are emptied.
   */
  shareServer?: boolean;
}

// Workspace options that live outside the project: the shared server's, the same for the whole block.
const PER_PROCESS = ["config", "models", "plugin", "env", "base", "bareHome"] as const;
type ServerOptions = Pick<WorkspaceOptions, (typeof PER_PROCESS)[number]>;
const serverOptions = (options: Omit<WorkspaceOptions, "model">): ServerOptions =>
  Object.fromEntries(PER_PROCESS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));

/** Otto's user folders in a shared home, emptied between tests. */
const ottoUserDirs = (ws: Workspace): string[] =>
  [ws.dirs.configHome, ws.dirs.dataHome, ws.dirs.cacheHome, ws.dirs.stateHome].map((dir) => path.join(dir, "otto"));

/**
 * A worker's shared servers and their scripted models, kept across its test files: the e2e project
 * runs a worker's files in one process (isolate: false in vitest.config.ts), so only the first file
 * of a worker with a given set of options pays OpenCode's start. Each is reset between tests as
 * within a file; both die with the worker (processes.ts) and the host folders with them.
 */
interface Shared {
  host: Workspace;
  serve: Serve;
}
const workerModels = new Map<string, Promise<ModelServer>>();
const workerServers = new Map<string, Promise<Shared>>();
// A few option sets cover the shared files; an idle server holds memory, not CPU.
const MAX_WORKER_SERVERS = 3;
// Hosts a test placed outside the run's folder (its own `base`): removed as the worker exits.
const workerRoots: string[] = [];
process.once("exit", () => {
  for (const root of workerRoots) fs.rmSync(root, { recursive: true, force: true });
});

/**
 * Where the pooled servers' folders go unless a test asked for another base: the run's global
 * teardown removes it (test/support/global-setup.ts), as a worker's exit listener cannot wait for
 * the killed servers to stop writing there.
 */
function workerServersDir(): string {
  const dir = serversDirOf(process.ppid);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function workerModel(options: ModelServerOptions): Promise<ModelServer> {
  const key = JSON.stringify(options);
  let model = workerModels.get(key);
  if (!model) {
    model = startModelServer(options);
    workerModels.set(key, model);
    model.catch(() => workerModels.delete(key));
  }
  return model;
}

async function retire(shared: Shared | undefined): Promise<void> {
  await shared?.serve.close();
  await shared?.host.cleanup();
}

async function workerServer(model: ModelServer, wanted: ServerOptions): Promise<Shared> {
  const key = JSON.stringify([model.baseURL, wanted]);
  const pooled = workerServers.get(key);
  if (pooled) {
    const shared = await pooled.catch(() => undefined);
    // A server that died (a test killed it, or it crashed) is replaced, not reused.
    if (shared && survivors(shared.serve.process).includes(shared.serve.process.pgid)) {
      workerServers.delete(key);
      workerServers.set(key, pooled);
      return shared;
    }
    workerServers.delete(key);
    await retire(shared);
  }
  for (const [oldKey, old] of [...workerServers].slice(0, Math.max(0, workerServers.size - MAX_WORKER_SERVERS + 1))) {
    workerServers.delete(oldKey);
    await retire(await old.catch(() => undefined));
  }
  const starting = (async (): Promise<Shared> => {
    const host = await createWorkspace({ ...wanted, model, base: wanted.base ?? workerServersDir() });
    try {
      const serve = await startServe(host);
      keepForWorker(serve.process);
      if (wanted.base) workerRoots.push(host.root);
      return { host, serve };
    } catch (error) {
      await host.cleanup();
      throw error;
    }
  })();
  workerServers.set(key, starting);
  starting.catch(() => workerServers.delete(key));
  return starting;
}

/** Where a secret of the developer's home reached: a model request, or a commit of a test's project. */
function leakedSecrets(model: ModelServer, workspaces: readonly Workspace[]): string[] {
  const secrets = Object.values(DEV_SECRETS);
  const found: string[] = [];
  for (const r of model.requests) {
    const text = JSON.stringify([r.system, r.messages]);
    if (secrets.some((s) => text.includes(s))) found.push(`model request #${r.seq}`);
  }
  for (const ws of workspaces) {
    // Read as data: a hostile test's tree may configure programs git would run.
    const args = [
      "-c",
      "core.fsmonitor=false",
      "-c",
      "core.hooksPath=/dev/null",
      "log",
      "--all",
      "-p",
      "--no-ext-diff",
      "--no-textconv",
      "--format=%B%an%ae",
    ];
    const history = spawnSync("git", args, { cwd: ws.project, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: gitEnv() });
    if (secrets.some((s) => (history.stdout ?? "").includes(s))) found.push(`a commit in ${ws.project}`);
  }
  return found;
}

const tail = (text: string, lines: number): string => text.split("\n").slice(-lines).join("\n");

function describeModel(model: ModelServer): string {
  const requests = model.requests.map((r) => {
    const flags = [r.isTitle ? "title" : "", r.unmatched ? "UNMATCHED" : "", r.aborted ? "aborted" : ""].filter(Boolean).join(",");
    return `  #${r.seq} ${r.model} last=${r.lastRole ?? "-"} by=${r.answeredBy ?? "-"} ${flags} user=${JSON.stringify(r.lastUser.slice(0, 100))}`;
  });
  const pending = model.pending().map((e) => `  ${e.label ?? "?"}`);
  return [`model requests (${requests.length}):`, ...requests, `script entries not used (${pending.length}):`, ...pending].join("\n");
}

export function useE2E(options: ModelServerOptions = {}, { shareServer = false }: UseE2EOptions = {}): E2E {
  let model: ModelServer | undefined;
  let shared: Shared | undefined;
  let hostOptions: ServerOptions | undefined;
  let workspaces: Workspace[] = [];
  let serves: Serve[] = [];
  let runs: { args: string[]; result: RunResult }[] = [];
  let dump = "";
  let hooked = false;

  beforeAll(async () => {
    model = shareServer ? await workerModel(options) : await startModelServer(options);
    // A worker's model may come from an earlier file: start this one from a clean script.
    model.reset();
  });
  afterEach(async () => {
    // Every test, whatever it is about: the developer's home keeps its secrets (dev-home.ts).
    const leaked = model ? leakedSecrets(model, workspaces) : [];
    if (model && workspaces.length > 0) {
      dump = [
        describeModel(model),
        ...runs.map(
          ({ args, result }) =>
            `opencode ${args.join(" ")} → exit ${String(result.exitCode)}${result.timedOut ? " (timed out)" : ""}\n${tail(result.stderr, 20)}`,
        ),
        ...[...serves, ...(shared ? [shared.serve] : [])].map((s) => `opencode serve ${s.url} output:\n${tail(s.output(), 20)}`),
        ...workspaces.map((w) => `OpenCode log of ${w.root}:\n${tail(w.logs(), 60)}`),
      ].join("\n\n");
    }
    try {
      for (const serve of serves) await serve.close();
      if (shared) {
        // The test's projects leave the server (their plugin instances with them), then otto's user state goes.
        for (const ws of workspaces)
          await createOpencodeClient({ baseUrl: shared.serve.url, directory: ws.project })
            .instance.dispose({ throwOnError: true })
            .catch(() => undefined);
        for (const dir of ottoUserDirs(shared.host)) fs.rmSync(dir, { recursive: true, force: true });
      }
      for (const ws of workspaces) await ws.cleanup();
    } finally {
      serves = [];
      workspaces = [];
      runs = [];
      hooked = false;
      model?.reset();
    }
    if (leaked.length > 0) throw new Error(`a secret of the developer's home left it: ${leaked.join("; ")}`);
  });
  afterAll(async () => {
    // The worker keeps its shared server and model for its next files.
    if (!shareServer) await model?.close();
  });

  async function sharedServer(wanted: ServerOptions): Promise<Shared> {
    shared ??= await workerServer(current(), wanted);
    return shared;
  }

  function current(): ModelServer {
    if (!model) throw new Error("useE2E().model is only available inside tests and hooks of its describe block");
    return model;
  }

  return {
    get model() {
      return current();
    },
    async workspace(wsOptions = {}) {
      let host: Workspace | undefined;
      if (shareServer) {
        const wanted = serverOptions(wsOptions);
        hostOptions ??= wanted;
        if (JSON.stringify(wanted) !== JSON.stringify(hostOptions))
          throw new Error(
            `useE2E({ shareServer }): this workspace's ${PER_PROCESS.join("/")} differ from the shared server's; give it a block without shareServer`,
          );
        host = (await sharedServer(wanted)).host;
      }
      const ws = await createWorkspace({ ...wsOptions, model: current(), ...(host ? { shareDirsOf: host } : {}) });
      workspaces.push(ws);
      if (!hooked) {
        hooked = true;
        onTestFailed(() => console.log(`--- e2e diagnostics ---\n${dump}`));
      }
      return ws;
    },
    async serve(ws, serveOptions) {
      if (shared && serveOptions?.env) throw new Error("useE2E({ shareServer }): a serve's env would not reach the shared server");
      const serve = shared ? await serveView(shared.serve, ws.project) : await startServe(ws, serveOptions);
      serves.push(serve);
      return serve;
    },
    async run(ws, args, runOptions) {
      const through = shared !== undefined && args[0] === "run";
      const result = through
        ? await runThroughServer(shared!.serve, runOptions?.cwd ?? ws.project, args, runOptions)
        : await runOpencode(ws, args, runOptions);
      runs.push({ args: through ? ["run (shared server)", ...args.slice(1)] : args, result });
      return result;
    },
  };
}
