import type { ShellArg } from "./shell-ast.ts";

/*
 * Requests to OpenCode's own server. A session that reaches it (the plugin's server URL, or the
 * detached watcher's `opencode serve` on server.port) can create a session otto does not guard and
 * have it push, so such a request is a forge call: refused. The server listens on loopback, and
 * loopback has many spellings; a port another app of the project uses (3000, say) stays allowed.
 */

/** A server otto refuses requests to: `host:port`, host lower-cased, IPv6 without brackets, every loopback spelling as 127.0.0.1. */
export type Endpoint = string;

/** Loopback spellings: 127.0.0.0/8, localhost (and *.localhost), ::1, 0.0.0.0 (Linux connects it to the local host), `0`. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return (
    /^127(\.\d{1,3}){1,3}$/.test(h) ||
    h === "localhost" ||
    h.endsWith(".localhost") ||
    /^(0:){0,7}:?:?0*1$/.test(h) ||
    h === "::ffff:127.0.0.1" ||
    h === "0.0.0.0" ||
    h === "0" ||
    h === "::"
  );
}

/**
 * The endpoints of the servers to refuse: each URL's own host and port, and for a loopback host
 * (or a bare port) the same port on every loopback name.
 */
export function localEndpoints(urls: readonly string[], ports: readonly number[]): Endpoint[] {
  const out = new Set<Endpoint>();
  const loopbackPort = (port: number) => out.add(`127.0.0.1:${port}`);
  for (const port of ports) if (Number.isInteger(port) && port > 0) loopbackPort(port);
  for (const raw of urls) {
    const at = endpointOf(raw);
    if (!at) continue;
    if (isLoopback(at.host)) loopbackPort(at.port);
    else out.add(`${at.host}:${at.port}`);
  }
  return [...out];
}

/**
 * Host and port of a URL-like word (`http://h:p/…`, `h:p/…`, `[::1]:p`, `user@h:p`, `:p`); the scheme's
 * port when none is given (curl's default scheme is http).
 */
export function endpointOf(text: string): { host: string; port: number } | undefined {
  // httpie and xh read `:4097/x` as localhost:4097.
  const shorthand = /^:(\d{1,5})(?:[/?#]|$)/.exec(text.trim());
  if (shorthand) return { host: "localhost", port: Number(shorthand[1]) };
  const match = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(?:[^/@\s]*@)?(\[[0-9a-f:.]+\]|[^/:?#\s'"[\]]+)(?::(\d{1,5}))?(?:[/?#]|$)/i.exec(
    text.trim().replace(/^['"]/, ""),
  );
  if (!match?.[2]) return undefined;
  const scheme = (match[1] ?? "http").toLowerCase();
  const port = match[3] ? Number(match[3]) : scheme === "https" || scheme === "wss" ? 443 : 80;
  return { host: match[2].toLowerCase().replace(/^\[|\]$/g, ""), port };
}

/** The endpoint a word names when it is one of `endpoints` (a loopback host matched by any spelling). */
export function localServerOf(text: string, endpoints: readonly Endpoint[]): Endpoint | undefined {
  const at = endpointOf(text);
  if (!at) return undefined;
  const host = isLoopback(at.host) ? "127.0.0.1" : at.host;
  const key = `${host}:${at.port}`;
  return endpoints.includes(key) ? `${at.host.includes(":") ? `[${at.host}]` : at.host}:${at.port}` : undefined;
}

/** Why an HTTP client's call is refused because it goes to OpenCode's server, or undefined. */
export function localServerDenial(name: string, args: readonly ShellArg[], endpoints: readonly Endpoint[]): string | undefined {
  if (endpoints.length === 0) return undefined;
  for (const arg of args) {
    const text = arg.value ?? arg.text;
    if (text.startsWith("-")) {
      // --url=…, --connect-to and friends carry the URL after `=`.
      const value = /^--[a-z-]+=(.+)$/.exec(text)?.[1];
      const hit = value ? localServerOf(value, endpoints) : undefined;
      if (hit) return `${name} to OpenCode's own server (${hit})`;
      continue;
    }
    const hit = localServerOf(text, endpoints);
    if (hit) return `${name} to OpenCode's own server (${hit})`;
  }
  return undefined;
}

/** OpenCode's server named in inline code or a script of another language, or a `/dev/tcp/host/port` path. */
export function mentionsLocalServer(code: string, endpoints: readonly Endpoint[]): string | undefined {
  if (endpoints.length === 0) return undefined;
  const host = String.raw`(\[[0-9a-f:.]+\]|[a-z0-9.-]+)`;
  for (const match of code.matchAll(new RegExp(String.raw`${host}:(\d{1,5})\b`, "gi"))) {
    const hit = localServerOf(`${match[1]}:${match[2]}/`, endpoints);
    if (hit) return hit;
  }
  // bash's /dev/tcp/<host>/<port>; Python's ("127.0.0.1", 4097) and Node's { host, port } pairs.
  for (const match of code.matchAll(/\/dev\/tcp\/([^/\s]+)\/(\d{1,5})/gi)) {
    const hit = localServerOf(`${match[1]}:${match[2]}/`, endpoints);
    if (hit) return hit;
  }
  for (const match of code.matchAll(/['"]([a-z0-9.:[\]-]+)['"]\s*,\s*(\d{1,5})\b/gi)) {
    const hit = localServerOf(
      `${match[1]?.includes(":") && !match[1].startsWith("[") ? `[${match[1]}]` : match[1]}:${match[2]}/`,
      endpoints,
    );
    if (hit) return hit;
  }
  return undefined;
}
