import type { Message as SdkMessage, Part } from "@opencode-ai/sdk";
import { OttoError, redact } from "../core/index.ts";
import type { OpencodeClient } from "../runtime.ts";
import type { ModelRef } from "../session/index.ts";

/** One OpenCode permission rule, as `POST /session` takes them (last match wins). */
export interface PermissionRule {
  permission: string;
  pattern: string;
  action: "allow" | "deny" | "ask";
}

export interface PromptInput {
  agent: string;
  model?: ModelRef;
  text: string;
}

/**
 * What the crew asks of OpenCode. It is not src/session: that layer runs one blocking turn at a
 * time and checks the reply, while crew sessions live on, are prompted fire-and-forget
 * (`prompt_async`) and are watched through events. Every call names the session's directory:
 * a worktree's sessions belong to another OpenCode instance than the orchestrator's.
 */
export interface CrewHost {
  createSession(input: { parentID: string; title: string; directory: string; permission: PermissionRule[] }): Promise<string>;
  /** Starts a turn and returns at once (HTTP 204); the turn's end arrives as `session.idle`. */
  prompt(sessionID: string, directory: string, input: PromptInput): Promise<void>;
  abort(sessionID: string, directory: string): Promise<void>;
  isBusy(sessionID: string, directory: string): Promise<boolean>;
  /** False when OpenCode no longer has the session (deleted, or another database). */
  exists(sessionID: string, directory: string): Promise<boolean>;
  /** The session's messages, oldest first; with `limit`, only the newest ones. */
  messages(sessionID: string, directory: string, limit?: number): Promise<Array<{ info: SdkMessage; parts: Part[] }>>;
  /** The agent and model of the session's latest user message, to keep waking it the same way. */
  lastRole(sessionID: string, directory: string): Promise<{ agent?: string; model?: ModelRef }>;
  toast(directory: string, title: string, message: string): Promise<void>;
  /** Names of the agents OpenCode knows. */
  agentNames(directory: string): Promise<string[]>;
}

function failure(action: string, error: unknown): OttoError {
  const detail = error && typeof error === "object" ? JSON.stringify(error) : String(error);
  return new OttoError(
    "crew_opencode",
    `OpenCode could not ${action}: ${redact(detail)}`,
    "Check that OpenCode is running and the session exists (/otto-agent status).",
  );
}

function check<T>(result: { data?: T; error?: unknown }, action: string): T {
  if (result.error !== undefined || result.data === undefined) throw failure(action, result.error);
  return result.data;
}

/** `onSession` hears every session the crew creates (the guard keeps them from pushing: src/guard). */
export function openCodeHost(client: OpencodeClient, onSession: (sessionID: string) => void = () => undefined): CrewHost {
  return {
    async createSession({ parentID, title, directory, permission }) {
      // `permission` is accepted by OpenCode 1.18's POST /session (v2 types) but missing from the v1 types.
      const body = { parentID, title, permission } as { parentID: string; title: string };
      const id = check(await client.session.create({ body, query: { directory } }), "create the agent's session").id;
      onSession(id);
      return id;
    },
    async prompt(sessionID, directory, { agent, model, text }) {
      const result = await client.session.promptAsync({
        path: { id: sessionID },
        query: { directory },
        body: { agent, ...(model ? { model } : {}), parts: [{ type: "text", text }] },
      });
      if (result.error !== undefined) throw failure(`prompt session ${sessionID}`, result.error);
    },
    async abort(sessionID, directory) {
      const result = await client.session.abort({ path: { id: sessionID }, query: { directory } });
      if (result.error !== undefined) throw failure(`abort session ${sessionID}`, result.error);
    },
    async isBusy(sessionID, directory) {
      const statuses = check(await client.session.status({ query: { directory } }), "read the session status");
      const status = statuses[sessionID];
      return status !== undefined && status.type !== "idle";
    },
    async exists(sessionID, directory) {
      const result = await client.session.get({ path: { id: sessionID }, query: { directory } });
      if (result.data) return true;
      if (result.response?.status === 404) return false;
      throw failure(`read session ${sessionID}`, result.error);
    },
    async messages(sessionID, directory, limit) {
      const query = limit === undefined ? { directory } : { directory, limit };
      return check(await client.session.messages({ path: { id: sessionID }, query }), `read the messages of ${sessionID}`);
    },
    async lastRole(sessionID, directory) {
      // A turn is one user message and an assistant message per step: the newest few usually hold it.
      const lastUser = (messages: Array<{ info: SdkMessage }>) => messages.findLast((m) => m.info.role === "user")?.info;
      const user = lastUser(await this.messages(sessionID, directory, 20)) ?? lastUser(await this.messages(sessionID, directory));
      return user?.role === "user" ? { agent: user.agent, model: user.model } : {};
    },
    async toast(directory, title, message) {
      await client.tui.showToast({ query: { directory }, body: { title, message, variant: "warning" } });
    },
    async agentNames(directory) {
      return check(await client.app.agents({ query: { directory } }), "list the agents").map((a) => a.name);
    },
  };
}
