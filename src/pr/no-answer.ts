/*
 * A request that got no HTTP answer at all, told apart for both backends: which cause (DNS,
 * refused, timed out), which host and port, and whether asking again within seconds can help.
 */

/** The first string `code` down an error's cause chain: ENOTFOUND, ECONNREFUSED (Node), ConnectionRefused (Bun). */
export function networkCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code) return code;
  }
  return undefined;
}

// Node (undici) and Bun spell the same failures differently; Bun 1.3 (OpenCode's runtime) reports a
// name that does not resolve as ConnectionRefused too.
const DNS = new Set(["ENOTFOUND", "EAI_AGAIN"]);
const REFUSED = new Set(["ECONNREFUSED", "ConnectionRefused"]);
const TIMEOUT = new Set(["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "Timeout"]);

/**
 * The name did not resolve or the port refused the connection: nothing was sent, and asking again
 * within seconds meets the same answer. (EAI_AGAIN is a resolver's "try again": it is retried.)
 */
export function isConnectFailure(error: unknown): boolean {
  const code = networkCode(error);
  return code !== undefined && code !== "EAI_AGAIN" && (DNS.has(code) || REFUSED.has(code));
}

/** Why no answer came, in words; `message` when the code says nothing known. */
export function noAnswerReason(error: unknown, message: string): string {
  const code = networkCode(error);
  if (code && DNS.has(code)) return "its name did not resolve (DNS)";
  if (code === "ConnectionRefused") return "the connection was refused (or its name did not resolve)";
  if (code && REFUSED.has(code)) return "the connection was refused (nothing listens on that port, or a firewall refuses it)";
  if (code && TIMEOUT.has(code)) return "the connection timed out";
  return message;
}

/** host:port of a URL, the default port written out, so a message names where otto knocked. */
export function hostPort(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === "http:" ? "80" : "443")}`;
}
