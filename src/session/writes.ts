/*
 * What a session's tools changed, as OpenCode's tool hooks tell it: the paths its file tools wrote
 * and the time windows in which it ran shell commands. Parallel tasks share one working tree, so
 * a snapshot diff cannot say which task changed a file; this record can (src/execute/task-files.ts).
 * Only sessions someone watches are recorded, and their records go when the watcher releases them,
 * so the registry holds nothing for sessions nobody asks about.
 */

/** OpenCode 1.18's tools that write the files their arguments name. */
const FILE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"]);
const SHELL_TOOLS = new Set(["bash"]);

/** A span of time in ms (the registry's clock); `end` unset while it is still open. */
export interface TimeWindow {
  start: number;
  end?: number;
}

/** What one watched session did so far. */
export interface SessionActivity {
  /** Paths its file tools wrote, as the tool got them (absolute or relative to the session's directory). */
  files: string[];
  /** When it ran shell commands: a call's `tool.execute.before` to its `after`. */
  shell: TimeWindow[];
  /** From the watch to `end` (its turn is over). */
  active: TimeWindow;
  /** Tool calls seen, of any tool: none at all means the hooks never reached this registry. */
  calls: number;
}

interface Watched extends SessionActivity {
  open: Map<string, TimeWindow>;
}

export interface ToolCall {
  tool: string;
  sessionID: string;
  callID: string;
}

export class SessionWrites {
  readonly #sessions = new Map<string, Watched>();

  constructor(readonly now: () => number = Date.now) {}

  /** Records this session's tool calls from now on. */
  watch(sessionID: string): void {
    if (!this.#sessions.has(sessionID))
      this.#sessions.set(sessionID, { files: [], shell: [], active: { start: this.now() }, calls: 0, open: new Map() });
  }

  /** The session's turn is over: its open shell windows close (a call that threw never reaches `after`). */
  end(sessionID: string): void {
    const s = this.#sessions.get(sessionID);
    if (!s) return;
    const at = this.now();
    for (const window of s.open.values()) window.end = at;
    s.open.clear();
    s.active.end ??= at;
  }

  /** Forgets the session's record. */
  release(sessionID: string): void {
    this.#sessions.delete(sessionID);
  }

  /** `tool.execute.before`, once the guard let the call through: a shell window opens. */
  toolStarted(call: ToolCall): void {
    const s = this.#sessions.get(call.sessionID);
    if (!s) return;
    s.calls++;
    if (!SHELL_TOOLS.has(call.tool)) return;
    const window: TimeWindow = { start: this.now() };
    s.shell.push(window);
    s.open.set(call.callID, window);
  }

  /** `tool.execute.after`: the call's shell window closes; a file tool's paths are recorded (it did run). */
  toolFinished(call: ToolCall & { args: unknown }): void {
    const s = this.#sessions.get(call.sessionID);
    if (!s) return;
    const window = s.open.get(call.callID);
    if (window) {
      window.end = this.now();
      s.open.delete(call.callID);
    }
    if (FILE_TOOLS.has(call.tool)) s.files.push(...writtenPaths(call.args));
  }

  /** A copy of what the session did, or undefined when it is not watched. */
  activity(sessionID: string): SessionActivity | undefined {
    const s = this.#sessions.get(sessionID);
    return s && { files: [...s.files], shell: s.shell.map((w) => ({ ...w })), active: { ...s.active }, calls: s.calls };
  }
}

/**
 * The paths a file tool's arguments name: `filePath` (write, edit, multiedit), and the file
 * headers of apply_patch's `patchText` (`*** Add File: …`, `*** Update File: …`, `*** Delete
 * File: …`, `*** Move to: …`). The guard reads the same arguments to refuse paths (src/guard).
 */
export function writtenPaths(args: unknown): string[] {
  if (!args || typeof args !== "object") return [];
  const a = args as Record<string, unknown>;
  const files: string[] = [];
  for (const key of ["filePath", "file_path", "path"]) if (typeof a[key] === "string") files.push(a[key]);
  for (const key of ["patchText", "patch", "input"]) {
    const text = a[key];
    if (typeof text !== "string") continue;
    for (const m of text.matchAll(/^\*\*\* (?:(?:Add|Update|Delete) File|Move to):\s+(.+)$/gm)) if (m[1]) files.push(m[1].trim());
  }
  return files;
}
