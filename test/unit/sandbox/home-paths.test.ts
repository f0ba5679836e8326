import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { realPath, runtimePaths, storePaths, toolchainPaths } from "../../../src/sandbox/home.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * What of the home the sandbox brings back, as reviewed: toolchains read-only, package stores
 * writable, and the session's sockets hidden. A path added here is a path a sandboxed command sees.
 */

describe("toolchainPaths", () => {
  it("the default places, read-only", () => {
    expect(toolchainPaths({ HOME: "/h" })).toEqual([
      ...["/h/.nvm", "/h/.volta", "/h/.bun/bin", "/h/.deno", "/h/.cargo/bin", "/h/.rustup", "/h/.pyenv", "/h/.rbenv", "/h/.nodenv"],
      ...["/h/.goenv", "/h/.local/bin", "/h/.local/lib", "/h/.local/share/virtualenvs", "/h/.local/share/uv", "/h/.gem"],
      ...["/h/.local/share/mise", "/h/.local/share/fnm", "/h/.fnm", "/h/.local/share/pnpm", "/h/.asdf", "/h/.sdkman", "/h/.dotnet"],
      ...["/h/go/bin", "/h/.cache/node/corepack", "/h/.cache/ms-playwright"],
    ]);
  });

  it("where the environment moves them, there; JAVA_HOME, GOROOT and VIRTUAL_ENV added; each once", () => {
    const env = {
      HOME: "/h",
      XDG_DATA_HOME: "/d",
      XDG_CACHE_HOME: "/c",
      NVM_DIR: "/t/nvm",
      VOLTA_HOME: "/t/volta",
      BUN_INSTALL: "/t/bun",
      DENO_INSTALL: "/t/deno",
      CARGO_HOME: "/t/cargo",
      RUSTUP_HOME: "/t/rustup",
      PYENV_ROOT: "/t/pyenv",
      MISE_DATA_DIR: "/t/mise",
      ASDF_DATA_DIR: "/t/asdf",
      SDKMAN_DIR: "/t/sdkman",
      GOPATH: `/t/go${path.delimiter}/t/go2`,
      COREPACK_HOME: "/t/corepack",
      PLAYWRIGHT_BROWSERS_PATH: "/t/pw",
      JAVA_HOME: "/t/java",
      GOROOT: "/t/goroot",
      VIRTUAL_ENV: "/t/nvm",
    };
    expect(toolchainPaths(env)).toEqual([
      ...["/t/nvm", "/t/volta", "/t/bun/bin", "/t/deno", "/t/cargo/bin", "/t/rustup", "/t/pyenv", "/h/.rbenv", "/h/.nodenv", "/h/.goenv"],
      ...["/h/.local/bin", "/h/.local/lib", "/d/virtualenvs", "/d/uv", "/h/.gem", "/t/mise", "/d/fnm", "/h/.fnm", "/d/pnpm", "/t/asdf"],
      ...["/t/sdkman", "/h/.dotnet", "/t/go/bin", "/t/corepack", "/t/pw", "/t/java", "/t/goroot"],
    ]);
  });
});

describe("storePaths", () => {
  it("the default stores, writable", () => {
    expect(storePaths({ HOME: "/h" })).toEqual([
      ...["/h/.npm", "/h/.cache/pip", "/h/.cache/uv", "/h/.cache/pypoetry", "/h/.cache/go-build", "/h/go/pkg/mod", "/h/.cache/yarn"],
      ...["/h/.yarn/berry/cache", "/h/.cache/pnpm", "/h/.local/share/pnpm/store", "/h/.pnpm-store", "/h/.bun/install/cache"],
      ...["/h/.cache/deno", "/h/.cache/node-gyp", "/h/.cargo/registry", "/h/.cargo/git", "/h/.m2/repository", "/h/.gradle/caches"],
      ...["/h/.gradle/wrapper", "/h/.nuget/packages"],
    ]);
  });

  it("where the environment moves them, there", () => {
    const env = {
      HOME: "/h",
      XDG_CACHE_HOME: "/c",
      XDG_DATA_HOME: "/d",
      NPM_CONFIG_CACHE: "/s/npm-upper",
      PIP_CACHE_DIR: "/s/pip",
      UV_CACHE_DIR: "/s/uv",
      POETRY_CACHE_DIR: "/s/poetry",
      GOCACHE: "/s/gocache",
      GOMODCACHE: "/s/gomod",
      YARN_CACHE_FOLDER: "/s/yarn",
      BUN_INSTALL_CACHE_DIR: "/s/bun",
      DENO_DIR: "/s/deno",
      CARGO_HOME: "/s/cargo",
      GRADLE_USER_HOME: "/s/gradle",
      NUGET_PACKAGES: "/s/nuget",
    };
    expect(storePaths(env)).toEqual([
      ...["/s/npm-upper", "/s/pip", "/s/uv", "/s/poetry", "/s/gocache", "/s/gomod", "/s/yarn", "/h/.yarn/berry/cache", "/c/pnpm"],
      ...["/d/pnpm/store", "/h/.pnpm-store", "/s/bun", "/s/deno", "/c/node-gyp", "/s/cargo/registry", "/s/cargo/git"],
      ...["/h/.m2/repository", "/s/gradle/caches", "/s/gradle/wrapper", "/s/nuget"],
    ]);
    expect(storePaths({ HOME: "/h", npm_config_cache: "/s/npm", NPM_CONFIG_CACHE: "/s/npm-upper" })[0]).toBe("/s/npm");
    expect(storePaths({ HOME: "/h", BUN_INSTALL: "/b", GOPATH: "/g" })).toEqual(expect.arrayContaining(["/b/install/cache", "/g/pkg/mod"]));
  });
});

describe("runtimePaths", () => {
  it("the system's container sockets always; the session's runtime folder, sockets and agent when there are some", () => {
    const always = ["/var/run/docker.sock", "/run/docker.sock", "/var/run/podman/podman.sock", "/run/podman/podman.sock"];
    // Without a uid given, the process's own (a uid is always there on POSIX systems).
    expect(runtimePaths({}, undefined)).toEqual([...always, `/run/user/${process.getuid!()}`]);
    expect(
      runtimePaths(
        {
          XDG_RUNTIME_DIR: "/run/user/1000",
          DBUS_SESSION_BUS_ADDRESS: "unix:abstract=/tmp/x;unix:guid=1,path=/run/user/1000/my%20bus,x=y",
          DOCKER_HOST: "unix:///home/u/.docker/run/docker.sock",
          SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
        },
        1000,
      ),
    ).toEqual([...always, "/run/user/1000", "/run/user/1000/my bus", "/home/u/.docker/run/docker.sock", "/tmp/ssh-x/agent.1"]);
  });

  it("an address that names no socket file adds nothing", () => {
    const always = runtimePaths({}, undefined);
    for (const address of ["tcp://127.0.0.1:2375", "unix:abstract=/tmp/dbus-x", "unix://", "xunix:path=/a", "unix:path=", "ssh://host"])
      expect(runtimePaths({ DOCKER_HOST: address, DBUS_SESSION_BUS_ADDRESS: address }, undefined)).toEqual(always);
    expect(runtimePaths({ DBUS_SESSION_BUS_ADDRESS: "x:a=b;unix:path=/p/bus" }, undefined).at(-1)).toBe("/p/bus");
    for (const address of ["xunix:///run/x.sock", "unix:///run/x.sock\nmore"])
      expect(runtimePaths({ DOCKER_HOST: address }, undefined)).toEqual(always);
    expect(runtimePaths({ XDG_RUNTIME_DIR: "/tmp/runtime-u" }, 1000)).toEqual([...always.slice(0, 4), "/tmp/runtime-u", "/run/user/1000"]);
    expect(runtimePaths({}, 0).at(-1)).toBe("/run/user/0");
  });
});

describe("realPath", () => {
  it("resolves links; for a path not there, its parent's real path; relative paths against the working folder", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-realpath-")));
    removeAfterTest(dir);
    fs.mkdirSync(path.join(dir, "real"));
    fs.symlinkSync(path.join(dir, "real"), path.join(dir, "link"));
    expect(realPath(path.join(dir, "link"))).toBe(path.join(dir, "real"));
    expect(realPath(path.join(dir, "link", "new"))).toBe(path.join(dir, "real", "new"));
    expect(realPath(path.join(dir, "gone", "deeper"))).toBe(path.join(dir, "gone", "deeper"));
    expect(realPath("relative-otto-x")).toBe(path.join(fs.realpathSync(process.cwd()), "relative-otto-x"));
  });
});
