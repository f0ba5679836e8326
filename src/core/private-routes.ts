import type { OpencodeClient } from "./runtime-types.ts";

/*
 * OpenCode's routes the v1 SDK has no method for, in one place: the only module that reaches
 * under the SDK's classes to their request function (hey-api's `_client`, the same object on the
 * client and on each of its classes). Each function names its route and its body; when a client has
 * no transport (a stub, another SDK), the caller decides what that means.
 */

interface Transport {
  get(options: { url: string }): Promise<{ data?: unknown; error?: unknown }>;
  post(options: Record<string, unknown>): Promise<{ data?: unknown; error?: unknown }>;
  patch(options: Record<string, unknown>): Promise<{ data?: unknown; error?: unknown }>;
}

/** The answer of a route: hey-api's `{ data }` or `{ error }`, never a throw for an HTTP error. */
export interface RouteResult {
  data?: unknown;
  error?: unknown;
}

function transport(client: OpencodeClient): Transport | undefined {
  return (client as unknown as { _client?: Transport })._client;
}

/** Whether this client has the request function the private routes go through. */
export function hasPrivateRoutes(client: OpencodeClient): boolean {
  return transport(client) !== undefined;
}

/**
 * GET /global/health, which answers `{ healthy, version }` (the plugin input carries no version);
 * undefined when the client has no transport.
 */
export async function getHealth(client: OpencodeClient): Promise<RouteResult | undefined> {
  return transport(client)?.get({ url: "/global/health" });
}

/**
 * POST /permission/{requestID}/reply, OpenCode 1.18's answer to `permission.asked`: with a message,
 * the model gets it as feedback and goes on. Undefined when the client has no transport.
 */
export async function replyPermission(
  client: OpencodeClient,
  request: { requestID: string; directory: string; reply: "reject"; message: string },
): Promise<RouteResult | undefined> {
  return transport(client)?.post({
    url: "/permission/{requestID}/reply",
    path: { requestID: request.requestID },
    query: { directory: request.directory },
    body: { reply: request.reply, message: request.message },
    headers: { "Content-Type": "application/json" },
  });
}

/**
 * PATCH /session/{sessionID}/message/{messageID}/part/{partID}: writes a message part whole (OpenCode
 * publishes `message.part.updated` for the TUI). Throws when the client has no transport.
 */
export async function patchPart(
  client: OpencodeClient,
  request: { sessionID: string; messageID: string; partID: string; directory: string; part: unknown },
): Promise<RouteResult> {
  const raw = transport(client);
  if (!raw)
    throw new Error("this OpenCode client has no request function for PATCH /session/{sessionID}/message/{messageID}/part/{partID}");
  return raw.patch({
    url: "/session/{sessionID}/message/{messageID}/part/{partID}",
    path: { sessionID: request.sessionID, messageID: request.messageID, partID: request.partID },
    query: { directory: request.directory },
    body: request.part,
    headers: { "Content-Type": "application/json" },
  });
}
