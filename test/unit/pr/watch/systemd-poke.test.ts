import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { renderUnit } from "../../../../src/pr/watch/systemd.ts";

/*
 * The unit's ExecStartPost is what makes the service's `opencode serve` load otto (and so start the
 * watcher): it is run here as systemd would run it, against a local server standing in for OpenCode.
 */

const run = promisify(execFile);

/** The argument of `ExecStartPost=-/bin/sh -c "…"`, unquoted as systemd does (backslash escapes, %%, $$). */
function postCommand(unit: string): string {
  const quoted = /^ExecStartPost=-\/bin\/sh -c "(.*)"$/m.exec(unit)?.[1];
  if (quoted === undefined) throw new Error(`no ExecStartPost in:\n${unit}`);
  return quoted.replace(/\\(.)|%%|\$\$/g, (match, escaped: string | undefined) => escaped ?? match[0]!);
}

interface Seen {
  url: string;
  authorization: string | undefined;
}

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A stand-in for `opencode serve`: records each request and answers 200. */
async function fakeServe(): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    res.end("{}");
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, seen };
}

const directory = "/home/me/o'brien/my app";

describe("the systemd unit's request that loads otto", () => {
  it("names the directory, and sends no credentials when the service has no server password", async () => {
    const { port, seen } = await fakeServe();
    await run(
      "/bin/sh",
      [
        "-c",
        postCommand(
          renderUnit({
            opencode: "/opt/opencode",
            directory,
            port,
            env: {},
            environmentFile: "/home/me/.local/share/otto/watch-server.env",
          }),
        ),
      ],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    expect(seen).toEqual([{ url: `/path?directory=${encodeURIComponent(directory)}`, authorization: undefined }]);
    expect(decodeURIComponent(new URL(seen[0]!.url, "http://x").searchParams.get("directory") ?? "")).toBe(directory);
  });

  it("authenticates with OPENCODE_SERVER_PASSWORD (and _USERNAME) from the service's environment, which a protected serve requires", async () => {
    const { port, seen } = await fakeServe();
    const password = `p"w$x\\y'z %s`;
    // The password is not in the unit: it comes from an EnvironmentFile at run time.
    const unit = renderUnit({
      opencode: "/opt/opencode",
      directory: "/home/me/app",
      port,
      env: {},
      environmentFile: "/home/me/.local/share/otto/watch-server.env",
    });
    expect(unit).not.toContain(password);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", OPENCODE_SERVER_PASSWORD: password };
    await run("/bin/sh", ["-c", postCommand(unit)], { env });
    await run("/bin/sh", ["-c", postCommand(unit)], { env: { ...env, OPENCODE_SERVER_USERNAME: "watcher" } });
    expect(seen.map((s) => s.authorization)).toEqual([
      `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`,
      `Basic ${Buffer.from(`watcher:${password}`).toString("base64")}`,
    ]);
  });
});
