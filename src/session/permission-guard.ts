import type { Event } from "@opencode-ai/sdk";
// Direct imports, not the core barrel: this module is loaded with the plugin.
import { formatError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { replyPermission } from "../core/private-routes.ts";
import type { OpencodeClient } from "../core/runtime-types.ts";
import { typedLine } from "../sandbox/typed-line.ts";

/*
 * Otto's child sessions never wait on an "ask" permission nobody can answer. When a tool call of
 * one of otto's sessions (or of a subagent under one) needs an answer and no person can give it —
 * a headless host (`opencode run`, `opencode serve` running the watcher) or a session with no
 * parent a person could open (the watcher's) — otto rejects the request with a message, so the
 * model is told why and carries on without it, and logs what it denied.
 *
 * OpenCode 1.18 never calls the plugin hook `permission.ask` (its permission service publishes
 * `permission.asked` and waits for a reply), so otto answers that event through the server's reply
 * endpoint, as the TUI does. See docs/decisions.md.
 */

interface Owned {
  directory: string;
  /** A person can see it under their conversation (it has a parent session). */
  visible: boolean;
}

/**
 * Otto's sessions, process-wide: a session otto creates for a directory other than the one its
 * plugin instance serves (a PR's worktree) lives in that directory's instance, whose events reach
 * that instance's copy of otto. Bounded: a long-lived serve keeps only the newest ids.
 */
const owned = new Map<string, Owned>();
const MAX_OWNED = 10_000;

/** Records a session otto created (SessionRunner does this for every child). */
export function ownSession(id: string, directory: string, visible: boolean): void {
  owned.delete(id);
  owned.set(id, { directory, visible });
  if (owned.size > MAX_OWNED) owned.delete(owned.keys().next().value ?? "");
}

export function isOttoSession(id: string): boolean {
  return owned.has(id);
}

export interface AskedPermission {
  id: string;
  sessionID: string;
  permission: string;
  patterns: string[];
}

/** A permission request from an event: 1.18's `permission.asked`, or the v1 `permission.updated`. */
export function askedPermission(event: { type: string; properties?: unknown }): AskedPermission | undefined {
  if (event.type !== "permission.asked" && event.type !== "permission.updated") return undefined;
  const p = (event.properties ?? {}) as {
    id?: unknown;
    sessionID?: unknown;
    permission?: unknown;
    type?: unknown;
    patterns?: unknown;
    pattern?: unknown;
  };
  if (typeof p.id !== "string" || typeof p.sessionID !== "string") return undefined;
  // A sandboxed shell line is asked about as OpenCode runs it: name the line the session typed.
  const patterns = (Array.isArray(p.patterns) ? p.patterns.map(String) : p.pattern === undefined ? [] : [p.pattern].flat().map(String)).map(
    typedLine,
  );
  const permission = typeof p.permission === "string" ? p.permission : typeof p.type === "string" ? p.type : "unknown";
  return { id: p.id, sessionID: p.sessionID, permission, patterns };
}

export function denialMessage(asked: AskedPermission): string {
  const what = `${asked.permission}${asked.patterns.length > 0 ? ` (${asked.patterns.join(", ")})` : ""}`;
  return `Denied by otto: this session runs unattended, so nobody can answer the permission prompt for ${what}. Do the work without it; if you cannot, say in your reply what you needed and why.`;
}

async function reject(client: OpencodeClient, asked: AskedPermission, directory: string): Promise<void> {
  // The 1.18 reply endpoint the v1 SDK does not wrap: the model gets the message as feedback and goes on.
  const replied = await replyPermission(client, { requestID: asked.id, directory, reply: "reject", message: denialMessage(asked) });
  if (replied && replied.error === undefined) return;
  // The older endpoint: a plain rejection, which ends the model's turn.
  const result = await client.postSessionIdPermissionsPermissionId({
    path: { id: asked.sessionID, permissionID: asked.id },
    query: { directory },
    body: { response: "reject" },
  });
  if (result.error !== undefined) throw new Error(`OpenCode refused the permission reply: ${JSON.stringify(result.error)}`);
}

export interface PermissionGuardDeps {
  client: OpencodeClient;
  log: Logger;
  /** No person at this host (`opencode run`, `opencode serve`). */
  headless: boolean;
}

/** The event listener: adopts children of otto's sessions, rejects asks nobody can answer. */
export function permissionGuard(deps: PermissionGuardDeps): (event: Event) => void {
  return (event) => {
    const loose = event as { type: string; properties?: unknown };
    if (loose.type === "session.created") {
      const info = (loose.properties as { info?: { id?: string; parentID?: string; directory?: string } } | undefined)?.info;
      const parent = info?.parentID ? owned.get(info.parentID) : undefined;
      if (info?.id && parent) ownSession(info.id, info.directory ?? parent.directory, parent.visible);
      return;
    }
    const asked = askedPermission(loose);
    if (!asked) return;
    const session = owned.get(asked.sessionID);
    if (!session || (!deps.headless && session.visible)) return;
    deps.log.log(
      "warn",
      `otto denied ${asked.permission}${asked.patterns.length > 0 ? ` (${asked.patterns.join(", ")})` : ""} in its session ${asked.sessionID}: nobody can answer a permission prompt there`,
    );
    reject(deps.client, asked, session.directory).catch((error: unknown) => {
      // Another client (opencode run itself rejects asks of its own session tree) may have answered first.
      deps.log.log("warn", `otto could not answer the permission request ${asked.id}`, { error: formatError(error) });
    });
  };
}
