import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROVIDER_KEY_ENV, SECRET_ENV } from "../../../src/core/index.ts";
import {
  TOKEN_VARIABLES,
  bwrapArgs,
  envFilterScript,
  isSecretName,
  runtimePaths,
  sandboxEnvNames,
  sandboxPolicy,
  seatbeltProfile,
} from "../../../src/sandbox/index.ts";

const env = { HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.config", XDG_DATA_HOME: "/home/u/.local/share" };
const tree = { root: "/w/repo", gitDirs: ["/w/repo/.git"] };

describe("sandbox_access and the policy (pure)", () => {
  it("allow_read and allow_write: relative paths are the tree's, a credential store they name is shown, otto's folders never", () => {
    const policy = sandboxPolicy({
      cwd: "/w/repo",
      tree,
      env,
      access: {
        network: "none",
        allow_read: ["/home/u/.npmrc", ".env", "/home/u/.local/share/otto/sandbox"],
        allow_write: ["/home/u/.cache/tool"],
      },
    });
    expect(policy.allowRead).toEqual(["/home/u/.npmrc", "/w/repo/.env"]);
    expect(policy.allowWrite).toEqual(["/home/u/.cache/tool"]);
    expect(policy.hidden).not.toContain("/home/u/.npmrc");
    expect(policy.hidden).toContain("/home/u/.local/share/otto");
    expect(policy.home).toBe("/home/u");
    const args = bwrapArgs(policy, (p) => (p === "/home/u/.npmrc" ? "file" : "dir"));
    expect(args.slice(0, 3)).toEqual(["--die-with-parent", "--unshare-pid", "--unshare-net"]);
    const at = (...pair: string[]) => args.findIndex((_, i) => pair.every((p, j) => args[i + j] === p));
    expect(at("--ro-bind", "/home/u/.npmrc", "/home/u/.npmrc")).toBeGreaterThan(at("--tmpfs", "/home/u"));
    expect(at("--bind", "/home/u/.cache/tool", "/home/u/.cache/tool")).toBeGreaterThan(at("--tmpfs", "/home/u"));
    // Never ~/.cache whole, nor OpenCode's plugin cache.
    expect(args).not.toContain("/home/u/.cache");
    expect(args).not.toContain("/home/u/.cache/opencode");
  });

  it("a home under a private temp folder is hidden with it, not mounted", () => {
    expect(sandboxPolicy({ cwd: "/w/repo", tree, env: { HOME: "/tmp/h" } }).home).toBeUndefined();
  });

  it("macOS: the home is unreadable except what is shown, sockets refused, IP denied with network none", () => {
    const policy = sandboxPolicy({
      cwd: "/home/u/code/app",
      tree: { root: "/home/u/code/app", gitDirs: ["/home/u/code/app/.git"] },
      env: { ...env, SSH_AUTH_SOCK: "/private/tmp/agent.sock" },
      access: { network: "none", allow_read: [], allow_write: [] },
    });
    const profile = seatbeltProfile(policy);
    const deny = profile.indexOf('(deny file-read* (subpath "/home/u"))');
    const allow = profile.search(/\(allow file-read\* \(subpath "\/home\/u\/code\/app"\).*\(subpath "\/home\/u\/\.npm"\)/);
    expect(deny).toBeGreaterThan(0);
    expect(allow).toBeGreaterThan(deny);
    expect(profile.lastIndexOf('(subpath "/home/u/.ssh")')).toBeGreaterThan(allow);
    expect(profile).toContain('(remote unix-socket (path-literal "/private/tmp/agent.sock"))');
    expect(profile).toContain("(deny network-outbound (remote ip))");
  });

  it("the session's sockets: the runtime folder, D-Bus, Docker", () => {
    const paths = runtimePaths(
      {
        XDG_RUNTIME_DIR: "/run/user/1000",
        DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus,guid=abc",
        DOCKER_HOST: "unix:///home/u/.docker/run/docker.sock",
      },
      1000,
    );
    expect(paths).toEqual(
      expect.arrayContaining([
        "/run/user/1000",
        "/run/user/1000/bus",
        "/home/u/.docker/run/docker.sock",
        "/var/run/docker.sock",
        "/run/docker.sock",
      ]),
    );
  });

  it("names that look like secrets, and their stand-ins", () => {
    for (const name of [
      ".env",
      ".env.local",
      ".env.production",
      ".envrc",
      "server.pem",
      "tls.key",
      "cert.p12",
      "id_rsa",
      "id_ed25519",
      "credentials.json",
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of [".env.example", ".env.sample", ".env.template", "id_rsa.pub", "key.example.pem", "README.md", "keys.ts"]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe("the environment filter", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("passes no token, provider key or server password by name", () => {
    const names = sandboxEnvNames();
    for (const secret of [...TOKEN_VARIABLES, ...PROVIDER_KEY_ENV, ...SECRET_ENV, "SSH_AUTH_SOCK"]) expect(names).not.toContain(secret);
    expect(names).toEqual(expect.arrayContaining(["PATH", "HOME", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "GIT_ASKPASS"]));
  });

  it("passes allowed values as they are (quotes, newlines, $(…)), runs none of them, and drops the rest", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-envfilter-"));
    const pwned = path.join(dir, "pwned");
    const tricky = `it's "$(touch ${pwned})" \`touch ${pwned}\`\nline2 a=b`;
    const out = execFileSync("/bin/sh", ["-c", envFilterScript(), "otto-sandbox", "GIT_AUTHOR_NAME=Default", "/usr/bin/env", "-0"], {
      env: {
        PATH: "/usr/bin:/bin",
        LANG: tricky,
        FOO_TOKEN: "never",
        GIT_CONFIG_COUNT: "2",
        GIT_CONFIG_KEY_0: "a.b",
        GIT_CONFIG_VALUE_0: tricky,
        GIT_CONFIG_KEY_1: "c.d",
        GIT_CONFIG_VALUE_1: "",
        GIT_CONFIG_KEY_2: "beyond.count",
      },
      encoding: "utf8",
    });
    const vars = Object.fromEntries(
      out
        .split("\0")
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    // The filter's shell sets PWD itself.
    delete vars.PWD;
    expect(vars).toEqual({
      PATH: "/usr/bin:/bin",
      LANG: tricky,
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "a.b",
      GIT_CONFIG_VALUE_0: tricky,
      GIT_CONFIG_KEY_1: "c.d",
      GIT_CONFIG_VALUE_1: "",
      GIT_AUTHOR_NAME: "Default",
    });
    expect(fs.existsSync(pwned)).toBe(false);
    // A count that is not a number passes no numbered entry and runs nothing.
    const odd = execFileSync("/bin/sh", ["-c", envFilterScript(), "otto-sandbox", "/usr/bin/env"], {
      env: { PATH: "/usr/bin:/bin", GIT_CONFIG_COUNT: `1; touch ${pwned}`, GIT_CONFIG_KEY_0: "a.b" },
      encoding: "utf8",
    });
    expect(odd).not.toContain("GIT_CONFIG_KEY_0");
    expect(fs.existsSync(pwned)).toBe(false);
  });
});
