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
  /** runOpencode, with its output kept for the failure dump. */
  run(ws: Workspace, args: string[], options?: RunOptions): Promise<RunResult>;
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

export function useE2E(options: ModelServerOptions = {}): E2E {
  let model: ModelServer | undefined;
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
        ...serves.map((s) => `opencode serve ${s.url} output:\n${tail(s.output(), 20)}`),
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
    await model?.close();
  });

  function current(): ModelServer {
    if (!model) throw new Error("useE2E().model is only available inside tests and hooks of its describe block");
    return model;
  }

  return {
    get model() {
      return current();
    },
    async workspace(wsOptions = {}) {
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
      const result = await runOpencode(ws, args, runOptions);
      runs.push({ args, result });
      return result;
    },
  };
}
