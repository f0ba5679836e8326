import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { envFilterScript, sandboxEnvNames, withFilteredEnv } from "../../../src/sandbox/sandbox-env.ts";

/*
 * The sandbox's environment is an allow-list: this file holds it as reviewed, so a name added to
 * or dropped from it is a change someone reads here (access.test.ts checks that no token passes).
 */

const REVIEWED: string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_COLLATE",
  "LC_MESSAGES",
  "LC_MONETARY",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_ADDRESS",
  "LC_IDENTIFICATION",
  "LC_MEASUREMENT",
  "LC_NAME",
  "LC_PAPER",
  "LC_TELEPHONE",
  "TZ",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "TMPDIR",
  "PWD",
  "CI",
  "NODE_ENV",
  "NODE_OPTIONS",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "JAVA_HOME",
  "GRADLE_USER_HOME",
  "GOPATH",
  "GOROOT",
  "GOCACHE",
  "GOMODCACHE",
  "GOFLAGS",
  "GOPROXY",
  "GOPRIVATE",
  "GONOSUMDB",
  "GOTOOLCHAIN",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "PYENV_ROOT",
  "PYENV_VERSION",
  "VIRTUAL_ENV",
  "PYTHONPYCACHEPREFIX",
  "CONDA_PREFIX",
  "PIP_CACHE_DIR",
  "UV_CACHE_DIR",
  "POETRY_CACHE_DIR",
  "NVM_DIR",
  "NVM_BIN",
  "VOLTA_HOME",
  "BUN_INSTALL",
  "BUN_INSTALL_CACHE_DIR",
  "DENO_DIR",
  "DENO_INSTALL",
  "COREPACK_HOME",
  "PLAYWRIGHT_BROWSERS_PATH",
  "YARN_CACHE_FOLDER",
  "ASDF_DIR",
  "ASDF_DATA_DIR",
  "MISE_DATA_DIR",
  "SDKMAN_DIR",
  "NUGET_PACKAGES",
  "DOTNET_ROOT",
  "npm_config_cache",
  "npm_config_registry",
  "npm_config_prefix",
  "NPM_CONFIG_CACHE",
  "NPM_CONFIG_REGISTRY",
  "NPM_CONFIG_PREFIX",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_DATE",
  "EMAIL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CONFIG_COUNT",
  "GIT_TERMINAL_PROMPT",
  "GCM_INTERACTIVE",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SSH_ASKPASS_REQUIRE",
  "GIT_SSH_COMMAND",
  "GH_CONFIG_DIR",
  "AZURE_CONFIG_DIR",
];

const vars = (out: string): Record<string, string> =>
  Object.fromEntries(
    out
      .split("\0")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );

describe("the sandbox's allow-list", () => {
  it("is the reviewed list: the names builds need and the variables otto sets to block pushes, in that order", () => {
    expect(sandboxEnvNames()).toEqual(REVIEWED);
  });

  it("each of its names passes the filter with its value; a name beside it does not", () => {
    const env: Record<string, string> = { OTHER: "no" };
    for (const name of REVIEWED) env[name] = `v-${name}`;
    const out = vars(execFileSync("/bin/sh", ["-c", envFilterScript(), "otto-sandbox", "/usr/bin/env", "-0"], { env, encoding: "utf8" }));
    delete out.PWD;
    const expected = { ...env };
    delete expected.OTHER;
    delete expected.PWD;
    // GIT_CONFIG_COUNT is not a number here: no numbered entry is looked for.
    expect(out).toEqual(expected);
  });

  it("passes at most 64 numbered git config entries, whatever the count says", () => {
    const env: Record<string, string> = { PATH: "/usr/bin:/bin", GIT_CONFIG_COUNT: "70" };
    for (let i = 0; i < 70; i++) Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: `k.${i}`, [`GIT_CONFIG_VALUE_${i}`]: `v${i}` });
    const out = vars(execFileSync("/bin/sh", ["-c", envFilterScript(), "otto-sandbox", "/usr/bin/env", "-0"], { env, encoding: "utf8" }));
    expect(out.GIT_CONFIG_KEY_63).toBe("k.63");
    expect(out.GIT_CONFIG_VALUE_63).toBe("v63");
    expect(out.GIT_CONFIG_KEY_64).toBeUndefined();
    expect(Object.keys(out).filter((k) => k.startsWith("GIT_CONFIG_KEY_"))).toHaveLength(64);
  });

  it("starts the command through env -i (by its absolute path where there is one), after the defaults", () => {
    expect(envFilterScript().endsWith('\nexec /usr/bin/env -i "$@"')).toBe(true);
    expect(envFilterScript("env").endsWith('\nexec env -i "$@"')).toBe(true);
    expect(withFilteredEnv(["bwrap", "--die-with-parent"], ["HOME=/h"])).toEqual([
      "/bin/sh",
      "-c",
      envFilterScript(),
      "otto-sandbox",
      "HOME=/h",
      "bwrap",
      "--die-with-parent",
    ]);
    expect(withFilteredEnv(["x"])).toEqual(["/bin/sh", "-c", envFilterScript(), "otto-sandbox", "x"]);
  });
});
