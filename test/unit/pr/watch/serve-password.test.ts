import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../../src/core/index.ts";
import { spawnServe } from "../../../../src/pr/watch/detach.ts";
import { basicAuth } from "../../../../src/pr/watch/server-auth.ts";
import { testRoot } from "../../../support/dev-home.ts";
import { OPENCODE_BIN, isolatedEnv, makeDirs } from "../../../support/opencode-env.ts";

/*
 * The one place otto starts `opencode serve` (spawnServe, used by `watch start --detach`; the
 * systemd unit runs the same command with the same password from its EnvironmentFile): the real
 * pinned binary, started as otto starts it, refuses a request without the password.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function workspace(): { root: string; project: string; env: Record<string, string> } {
  const root = fs.mkdtempSync(path.join(testRoot(), "otto-serve-password-"));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const dirs = makeDirs(root, { bareHome: true });
  const project = path.join(root, "project");
  fs.mkdirSync(project, { recursive: true });
  return { root, project, env: isolatedEnv(dirs, project) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

describe("otto's opencode serve always has a password", () => {
  it("the real binary, started as otto starts it, answers 401 without the password or with a wrong one, 200 with it", async () => {
    const { root, project, env } = workspace();
    const port = await freePort();
    const password = "serve-password-0123456789abcdef";
    const child = spawnServe({
      opencode: OPENCODE_BIN,
      directory: project,
      env: { ...env, OPENCODE_SERVER_USERNAME: "opencode", OPENCODE_SERVER_PASSWORD: password },
      port,
      logFile: path.join(root, "serve.log"),
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    cleanups.push(async () => {
      // Its own process group (detached, as the watcher's): end it and wait.
      if (child.pid !== undefined && child.exitCode === null) {
        process.kill(-child.pid, "SIGTERM");
        await exited;
      }
    });
    const status = (authorization?: string, ms = 20_000) =>
      fetch(`http://127.0.0.1:${port}/session`, {
        headers: { "x-opencode-directory": project, ...(authorization ? { authorization } : {}) },
        signal: AbortSignal.timeout(ms),
      }).then(async (r) => (await r.body?.cancel(), r.status));
    const right = basicAuth({ username: "opencode", password });
    // Listening once a request gets any answer (a request in the first moments may get none: asked again).
    for (let i = 0; (await status(undefined, 2_000).catch(() => undefined)) === undefined; i++) {
      if (child.exitCode !== null || i > 300)
        throw new Error(`opencode serve did not start:\n${fs.readFileSync(path.join(root, "serve.log"), "utf8")}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await status()).toBe(401);
    expect(await status(basicAuth({ username: "opencode", password: "not-the-password" }))).toBe(401);
    expect(await status(right)).toBe(200);
  }, 120_000);

  it("starts nothing without a password", () => {
    const { root, project, env } = workspace();
    const marker = path.join(root, "started");
    const fake = path.join(root, "opencode");
    fs.writeFileSync(fake, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    for (const password of [undefined, ""]) {
      let error: unknown;
      try {
        spawnServe({
          opencode: fake,
          directory: project,
          env: { ...env, OPENCODE_SERVER_PASSWORD: password },
          port: 1,
          logFile: path.join(root, "log"),
        });
      } catch (e) {
        error = e;
      }
      expect(isOttoError(error) && error.code).toBe("watch_password");
    }
    expect(fs.existsSync(marker)).toBe(false);
    // The control: with a password the same program does start.
    const child = spawnServe({
      opencode: fake,
      directory: project,
      env: { ...env, OPENCODE_SERVER_PASSWORD: "p" },
      port: 1,
      logFile: path.join(root, "log"),
    });
    return new Promise<void>((resolve) => child.once("exit", () => resolve())).then(() => expect(fs.existsSync(marker)).toBe(true));
  });
});
