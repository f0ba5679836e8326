import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { basicAuth, serverAuthFile, watcherServerAuth, writeServerAuthFile } from "../../../../src/pr/watch/server-auth.ts";
import { useTempDir } from "../support.ts";

const tempDir = useTempDir();
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe("the detached watcher's server password", () => {
  it("is generated (crypto random) when none is configured, stored 0600 under otto's data dir, and reused", () => {
    const dataDir = path.join(tempDir(), "otto");
    const first = watcherServerAuth({ opencode: { username: "opencode" }, dataDir });
    expect(first.generated).toBe(true);
    expect(first.password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = serverAuthFile(dataDir);
    expect(file).toBe(path.join(dataDir, "watch-server.env"));
    expect(mode(file)).toBe(0o600);
    // systemd's EnvironmentFile= format: one NAME=value per line.
    expect(fs.readFileSync(file, "utf8")).toBe(`OPENCODE_SERVER_USERNAME=opencode\nOPENCODE_SERVER_PASSWORD=${first.password}\n`);
    expect(watcherServerAuth({ opencode: { username: "opencode" }, dataDir }).password).toBe(first.password);
    // Another install, another password.
    expect(watcherServerAuth({ opencode: { username: "opencode" }, dataDir: path.join(tempDir(), "otto") }).password).not.toBe(
      first.password,
    );
  });

  it("narrows a stored file someone widened back to 0600", () => {
    const dataDir = tempDir();
    const { password } = watcherServerAuth({ opencode: { username: "opencode" }, dataDir });
    fs.chmodSync(serverAuthFile(dataDir), 0o644);
    expect(watcherServerAuth({ opencode: { username: "opencode" }, dataDir }).password).toBe(password);
    expect(mode(serverAuthFile(dataDir))).toBe(0o600);
  });

  it("is the configured one (OPENCODE_SERVER_PASSWORD or opencode.password) when set, and then writes nothing", () => {
    const dataDir = tempDir();
    expect(watcherServerAuth({ opencode: { username: "me", password: "my-own-password" }, dataDir })).toEqual({
      username: "me",
      password: "my-own-password",
      generated: false,
    });
    expect(fs.existsSync(serverAuthFile(dataDir))).toBe(false);
  });

  it("writes the unit's file 0600 and refuses a value that would break its lines", () => {
    const file = path.join(tempDir(), "deep", "watch-server.env");
    writeServerAuthFile(file, { username: "opencode", password: "pw" });
    expect(mode(file)).toBe(0o600);
    expect(() => writeServerAuthFile(file, { username: "opencode", password: "a\nOTHER=1" })).toThrow(/line break/);
    expect(basicAuth({ username: "opencode", password: "pw" })).toBe(`Basic ${Buffer.from("opencode:pw").toString("base64")}`);
  });
});
