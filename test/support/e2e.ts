import { afterAll, afterEach, beforeAll, onTestFailed } from "vitest";
import { startModelServer, type ModelServer, type ModelServerOptions } from "./model-server.ts";
import { createWorkspace, runOpencode, type RunOptions, type RunResult, type Workspace, type WorkspaceOptions } from "./opencode.ts";
import { startServe, type Serve, type ServeOptions } from "./serve.ts";

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
   * runOpencode, with its output kept for the failure dump. With `shareServer`, `opencode run`
   * attaches to the block's one served OpenCode (`--attach <url> --dir <project>`).
   */
  run(ws: Workspace, args: string[], options?: RunOptions): Promise<RunResult>;
}

export interface UseE2EOptions {
  /**
   * One `opencode serve` for the block, started at the first `run` and closed after the last test:
   * each `opencode run` attaches to it in its own project instead of booting OpenCode itself (the
   * start is most of a short run). The server runs in a workspace of its own, made with the first
   * workspace's options that live outside the project (OpenCode config, user otto config, env), so
   * every later workspace of the block must ask for the same ones: `workspace()` refuses others.
   */
  shareServer?: boolean;
}

// Workspace options that live outside the project: the shared server's, the same for the whole block.
const PER_PROCESS = ["config", "models", "plugin", "userOttoConfig", "env", "base"] as const;
type ServerOptions = Pick<WorkspaceOptions, (typeof PER_PROCESS)[number]>;
const serverOptions = (options: Omit<WorkspaceOptions, "model">): ServerOptions =>
  Object.fromEntries(PER_PROCESS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));

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
  let shared: { host: Workspace; serve: Serve } | undefined;
  let hostOptions: ServerOptions | undefined;
  let workspaces: Workspace[] = [];
  let serves: Serve[] = [];
  let runs: { args: string[]; result: RunResult }[] = [];
  let dump = "";
  let hooked = false;

  beforeAll(async () => {
    model = await startModelServer(options);
  });
  afterEach(async () => {
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
      for (const ws of workspaces) await ws.cleanup();
    } finally {
      serves = [];
      workspaces = [];
      runs = [];
      hooked = false;
      model?.reset();
    }
  });
  afterAll(async () => {
    try {
      await shared?.serve.close();
      await shared?.host.cleanup();
    } finally {
      await model?.close();
    }
  });

  async function sharedUrl(): Promise<string> {
    if (!shared) {
      const host = await createWorkspace({ ...hostOptions, model: current() });
      try {
        shared = { host, serve: await startServe(host) };
      } catch (error) {
        await host.cleanup();
        throw error;
      }
    }
    return shared.serve.url;
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
      if (shareServer) {
        const wanted = serverOptions(wsOptions);
        hostOptions ??= wanted;
        if (JSON.stringify(wanted) !== JSON.stringify(hostOptions))
          throw new Error(
            `useE2E({ shareServer }): this workspace's ${PER_PROCESS.join("/")} differ from the shared server's; give it a block without shareServer`,
          );
      }
      const ws = await createWorkspace({ ...wsOptions, model: current() });
      workspaces.push(ws);
      if (!hooked) {
        hooked = true;
        onTestFailed(() => console.log(`--- e2e diagnostics ---\n${dump}`));
      }
      return ws;
    },
    async serve(ws, serveOptions) {
      const serve = await startServe(ws, serveOptions);
      serves.push(serve);
      return serve;
    },
    async run(ws, args, runOptions) {
      const attach = shareServer && args[0] === "run";
      if (attach && runOptions?.env) throw new Error("useE2E({ shareServer }): a run's env would not reach the shared server");
      const argv = attach ? ["run", "--attach", await sharedUrl(), "--dir", runOptions?.cwd ?? ws.project, ...args.slice(1)] : args;
      const result = await runOpencode(ws, argv, runOptions);
      runs.push({ args: argv, result });
      if (!attach) return result;
      // Otto sets the exit code of the process it runs in (src/tools/fail-job.ts): the server's, not
      // this client's, so an attached run's 0 says nothing. Reading it is a test bug.
      return Object.defineProperty({ ...result }, "exitCode", {
        get(): never {
          throw new Error("useE2E({ shareServer }): an attached run's exit code is not otto's verdict; assert on its output");
        },
      });
    },
  };
}
