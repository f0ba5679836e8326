import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Event } from "@opencode-ai/sdk";
import { silentLogger } from "../../../src/core/index.ts";
import { PromptGates, crewAt, type Crew, type CrewHost } from "../../../src/crew/index.ts";
import { removeAfterTest } from "../../support/git.ts";

/** A crew on real files in a temp dir, with a fake OpenCode that records prompts. */
export interface FakeCrew {
  crew: Crew;
  host: FakeHost;
  gates: PromptGates;
  /** Ends a turn in a session, as OpenCode's events would. */
  idle(sessionID: string): void;
  busy(sessionID: string): void;
  notified: Array<{ title: string; text: string }>;
  clock: { now: Date };
  cleanup(): void;
}

export interface FakeHost extends CrewHost {
  prompts: Array<{ sessionID: string; directory: string; agent: string; model?: { providerID: string; modelID: string }; text: string }>;
  toasts: Array<{ directory: string; title: string; message: string }>;
  aborted: string[];
  busySessions: Set<string>;
  deleted: Set<string>;
  /** The newest message of a session, as `messages(…, 1)` answers it (none when unset). */
  newest: Map<string, { role: "user" | "assistant"; time: { created: number; completed?: number }; finish?: string; error?: unknown }>;
  /** What lastRole answers for every session: the agent and model of its last user message. */
  role: { agent?: string; model?: { providerID: string; modelID: string } };
}

export function fakeHost(): FakeHost {
  let next = 0;
  const host: FakeHost = {
    prompts: [],
    toasts: [],
    aborted: [],
    busySessions: new Set(),
    deleted: new Set(),
    newest: new Map(),
    role: { agent: "otto", model: { providerID: "mock", modelID: "m1" } },
    async createSession() {
      return `ses_${++next}`;
    },
    async prompt(sessionID, directory, input) {
      host.prompts.push({ sessionID, directory, agent: input.agent, ...(input.model ? { model: input.model } : {}), text: input.text });
    },
    async abort(sessionID) {
      host.aborted.push(sessionID);
    },
    async isBusy(sessionID) {
      return host.busySessions.has(sessionID);
    },
    async exists(sessionID) {
      return !host.deleted.has(sessionID);
    },
    async messages(sessionID) {
      const info = host.newest.get(sessionID);
      return info ? [{ info: info as never, parts: [] }] : [];
    },
    async lastRole() {
      return host.role;
    },
    async toast(directory, title, message) {
      host.toasts.push({ directory, title, message });
    },
    async agentNames() {
      return ["build", "otto", "otto-crew"];
    },
  };
  return host;
}

export function fakeCrew(options: { pid?: number; alive?: (pid: number) => boolean; root?: string } = {}): FakeCrew {
  const root = options.root ?? fs.mkdtempSync(path.join(os.tmpdir(), "otto-crew-"));
  if (options.root === undefined) removeAfterTest(root);
  const host = fakeHost();
  const gates = new PromptGates({ log: silentLogger });
  const notified: FakeCrew["notified"] = [];
  const clock = { now: new Date("2026-01-01T10:00:00Z") };
  const crew = crewAt(root, {
    host,
    gates,
    log: silentLogger,
    env: { HOME: "/nonexistent-otto-home", XDG_CONFIG_HOME: "/nonexistent-otto-config" },
    now: () => clock.now,
    notify: async (_root, event) => {
      notified.push({ title: event.title, text: event.text });
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5))),
    pid: options.pid ?? 1000,
    isAlive: options.alive ?? (() => false),
  });
  const emit = (event: Event) => gates.observe(event);
  return {
    crew,
    host,
    gates,
    notified,
    clock,
    idle: (sessionID) => emit({ type: "session.idle", properties: { sessionID } }),
    busy: (sessionID) => emit({ type: "session.status", properties: { sessionID, status: { type: "busy" } } }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export const ORCH = { sessionID: "ses_otto", directory: "/project" };
