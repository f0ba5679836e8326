import net from "node:net";

/**
 * Polls `probe` until it gives a value (anything but undefined, null or false) and returns it; throws
 * `timed out waiting for <what>` after `timeoutMs`. For outcomes another process produces (a
 * watcher's post, a daemon's push): bounded, never an assertion on time.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  intervalMs = 150,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A TCP port free on 127.0.0.1 right now (for an `opencode serve` the test starts). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
