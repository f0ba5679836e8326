import net from "node:net";
import { createOpencodeClient, type Event, type OpencodeClient } from "@opencode-ai/sdk";
import { track, type Workspace } from "./opencode.ts";
import { OPENCODE_BIN } from "./opencode-env.ts";
import { spawnTracked, stopTracked, type ProcessHandle } from "./processes.ts";

/** A long-lived `opencode serve` for tests that drive sessions through the SDK. */

export interface EventLog {
  /** Every event received so far, oldest first (live array). */
  all: Event[];
  /**
   * Resolves with the first event at index >= `after` the predicate accepts, waiting up to
   * `timeoutMs`. Take `after` from `all.length` before the action, to skip older matches.
   */
  waitFor(predicate: (event: Event) => boolean, options?: { after?: number; timeoutMs?: number }): Promise<Event>;
}

export interface Serve {
  url: string;
  /** SDK client bound to the project directory. */
  client: OpencodeClient;
  /** What it runs as; `survivors(process)` is [] after close(). */
  process: ProcessHandle;
  /** Events from `GET /event` of the project instance, recorded from startup. */
  events: EventLog;
  /** What the server printed so far (stdout and stderr interleaved). */
  output(): string;
  /** Kills the process group; idempotent. */
  close(): Promise<void>;
}

const LISTENING = /opencode server listening on (https?:\/\/\S+)/;

export interface ServeOptions {
  /** Give up when the server has not printed its URL after this long (default 30 s). */
  timeoutMs?: number;
  env?: Record<string, string>;
}

function waitForUrl(subprocess: ReturnType<typeof spawnTracked>["subprocess"], output: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = (data: Buffer): void => {
      output.push(data.toString("utf8"));
      const match = LISTENING.exec(output.join(""));
      if (match?.[1]) {
        done();
        resolve(match[1]);
      }
    };
    const onExit = (): void => {
      done();
      reject(new Error(`opencode serve exited before listening:\n${output.join("")}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`opencode serve printed no URL within ${timeoutMs} ms:\n${output.join("")}`));
    }, timeoutMs);
    function done(): void {
      clearTimeout(timer);
      subprocess.stdout?.off("data", onData);
      subprocess.off("exit", onExit);
    }
    subprocess.stdout?.on("data", onData);
    subprocess.once("exit", onExit);
  });
}

function recordEvents(client: OpencodeClient, signal: AbortSignal, note: (line: string) => void): EventLog {
  const all: Event[] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    try {
      const { stream } = await client.event.subscribe({
        signal,
        // Reconnect quickly if the first connection fails while the server is still booting.
        sseDefaultRetryDelay: 100,
        sseMaxRetryDelay: 1_000,
        onSseError: (error) => {
          if (!signal.aborted) note(`[harness] event stream error: ${error instanceof Error ? error.message : String(error)}\n`);
        },
      });
      for await (const event of stream) {
        all.push(event);
        for (const wake of waiters) wake();
      }
    } catch {
      // The stream ends with an abort when the server is closed; nothing to report.
    }
  })();
  return {
    all,
    waitFor(predicate, { after = 0, timeoutMs = 30_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = all.slice(after).find(predicate);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
          return found !== undefined;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching OpenCode event within ${timeoutMs} ms; saw: ${all.map((e) => e.type).join(", ")}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
  };
}

/**
 * The shared `serve` as another project sees it: a client bound to `directory` and the events of
 * that directory's instance from now on. Closing it stops its event stream, not the server.
 */
export async function serveView(serve: Serve, directory: string): Promise<Serve> {
  const abort = new AbortController();
  const client = createOpencodeClient({ baseUrl: serve.url, directory });
  const events = recordEvents(client, abort.signal, () => undefined);
  await events.waitFor((e) => e.type === "server.connected", { timeoutMs: 30_000 });
  return {
    url: serve.url,
    client,
    process: serve.process,
    events,
    output: () => serve.output(),
    close: async () => abort.abort(),
  };
}

/** A port the kernel just handed out, so it is free unless someone grabs it in the next moment. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Starts `opencode serve` on a free port in the workspace's project. Close it in afterEach/finally. */
export async function startServe(ws: Workspace, options: ServeOptions = {}): Promise<Serve> {
  // Not `--port 0`: OpenCode reads that as "4096 if free", which parallel workers would race for.
  const port = await freePort();
  const { subprocess, handle } = spawnTracked(OPENCODE_BIN, ["serve", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: ws.project,
    env: { ...ws.env, ...options.env },
    buffer: false,
  });
  const untrack = track(ws, handle);
  const output: string[] = [];
  subprocess.stderr?.on("data", (data: Buffer) => output.push(data.toString("utf8")));
  // Swallow the settled result: failures are reported through waitForUrl and close().
  subprocess.catch(() => undefined);
  const abort = new AbortController();
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      abort.abort();
      await stopTracked(handle);
      untrack();
    })();
    return closed;
  };
  try {
    const url = await waitForUrl(subprocess, output, options.timeoutMs ?? 30_000);
    subprocess.stdout?.on("data", (data: Buffer) => output.push(data.toString("utf8")));
    const client = createOpencodeClient({ baseUrl: url, directory: ws.project });
    const events = recordEvents(client, abort.signal, (line) => output.push(line));
    // Connecting to /event boots the project instance (plugins included), so the server is ready after it.
    await events.waitFor((e) => e.type === "server.connected", { timeoutMs: options.timeoutMs ?? 30_000 });
    return { url, client, process: handle, events, output: () => output.join(""), close };
  } catch (error) {
    await close();
    throw error;
  }
}
