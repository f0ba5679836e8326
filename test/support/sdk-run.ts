import { createOpencodeClient, type Event, type Part } from "@opencode-ai/sdk";
import type { RunOptions, RunResult } from "./opencode.ts";
import type { ProcessHandle } from "./processes.ts";

/*
 * `opencode run [--command <name>] [--] <message…>` done through a served OpenCode's API instead of
 * a process of its own: the same session, the same command and arguments, the same automatic
 * rejection of permission asks, and stdout as `opencode run` prints it when piped (each finished
 * text part of the session, trimmed, one per line). A start of OpenCode is ~5 CPU-seconds on
 * these machines; this is a few hundred milliseconds of the server's.
 *
 * The exit code: otto sets a headless run's exit code where it marks the tool result failed
 * (src/tools/command.ts, one function does both), so a failed mark, or a session error, is exit 1.
 * Tests of the exit code itself run real `opencode run` processes.
 */

interface Parsed {
  command?: string;
  message: string[];
}

function parseRun(args: string[]): Parsed {
  if (args[0] !== "run") throw new Error(`useE2E({ shareServer }): only 'opencode run' goes through the shared server, not '${args[0]}'`);
  const parsed: Parsed = { message: [] };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      parsed.message.push(...args.slice(i + 1));
      break;
    }
    if (arg === "--command") parsed.command = args[++i];
    else if (arg.startsWith("--")) throw new Error(`useE2E({ shareServer }): 'opencode run ${arg}' needs a process of its own`);
    else parsed.message.push(arg);
  }
  return parsed;
}

/** What `opencode run` sends as a command's arguments (its own quoting of words with spaces). */
function runArguments(message: string[]): string {
  return message.map((word) => (word.includes(" ") ? `"${word.replace(/"/g, '\\"')}"` : word)).join(" ");
}

export async function runThroughServer(
  server: { url: string; process: ProcessHandle },
  directory: string,
  args: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  if (options.env) throw new Error("useE2E({ shareServer }): a run's env would not reach the shared server");
  const parsed = parseRun(args);
  const started = Date.now();
  const client = createOpencodeClient({ baseUrl: server.url, directory });
  const abort = new AbortController();
  let timedOut = false;
  let aborted = false;
  const family = new Set<string>();
  let sessionID: string | undefined;
  const errors: string[] = [];
  let onConnected = (): void => undefined;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));

  // Permission asks of the run's sessions are rejected, as `opencode run` does without --yolo.
  const listening = (async () => {
    try {
      const { stream } = await client.event.subscribe({ signal: abort.signal, sseDefaultRetryDelay: 100, sseMaxRetryDelay: 1_000 });
      for await (const event of stream as AsyncIterable<
        Event | { type: "permission.asked"; properties: { id: string; sessionID: string } }
      >) {
        if (event.type === "server.connected") onConnected();
        if (event.type === "session.created" && event.properties.info.parentID && family.has(event.properties.info.parentID))
          family.add(event.properties.info.id);
        // As `opencode run`: an error of the run's own session, not of the child sessions it started.
        if (event.type === "session.error" && event.properties.sessionID === sessionID)
          errors.push(JSON.stringify(event.properties.error ?? {}));
        if (event.type === "permission.asked" && family.has(event.properties.sessionID)) {
          await fetch(`${server.url}/permission/${event.properties.id}/reply?directory=${encodeURIComponent(directory)}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ reply: "reject" }),
          });
        }
      }
    } catch {
      // Ends with the abort below.
    }
  })();

  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.timeoutMs ?? 60_000);
  const onAbort = (): void => {
    aborted = true;
    abort.abort();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort);
  try {
    await Promise.race([connected, new Promise((_, reject) => abort.signal.addEventListener("abort", reject))]);
    const session = (await client.session.create({ body: {}, throwOnError: true })).data;
    sessionID = session.id;
    family.add(session.id);
    const body = { signal: abort.signal, throwOnError: false as const };
    const answer = parsed.command
      ? await client.session.command({
          path: { id: session.id },
          body: { command: parsed.command, arguments: runArguments(parsed.message) },
          ...body,
        })
      : await client.session.prompt({
          path: { id: session.id },
          body: { parts: [{ type: "text", text: parsed.message.join(" ") }] },
          ...body,
        });
    if (answer.error) errors.push(JSON.stringify(answer.error));
    const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
    const parts: Part[] = messages.filter((m) => m.info.role === "assistant").flatMap((m) => m.parts);
    const stdout = parts
      .filter((p) => p.type === "text" && p.time?.end)
      .map((p) => (p.type === "text" ? p.text.trim() : ""))
      .filter(Boolean)
      .map((text) => `${text}\n`)
      .join("");
    const failed = parts.some((p) => p.type === "tool" && p.state.status === "completed" && p.state.metadata?.failed === true);
    return {
      exitCode: failed || errors.length > 0 ? 1 : 0,
      stdout,
      stderr: errors.join("\n"),
      durationMs: Date.now() - started,
      timedOut: false,
      aborted: false,
      process: server.process,
    };
  } catch (error) {
    if (!timedOut && !aborted) throw error;
    if (sessionID) await client.session.abort({ path: { id: sessionID } }).catch(() => undefined);
    return { exitCode: undefined, stdout: "", stderr: "", durationMs: Date.now() - started, timedOut, aborted, process: server.process };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    abort.abort();
    await listening;
  }
}
