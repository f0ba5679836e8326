import { describe, expect, it } from "vitest";
import { BLOCKED_PUSH_URL, guardedEnvironment, protectedVariables, pushBlockingEnv } from "../../../src/sandbox/push-env.ts";

/*
 * push-env.ts written out whole (push-env.test.ts shows real pushes failing under it): every
 * variable a guarded shell gets, and which of the environment's it blanks.
 */

const BASE = {
  GIT_CONFIG_COUNT: "3",
  GIT_CONFIG_KEY_0: `url.${BLOCKED_PUSH_URL}.pushInsteadOf`,
  GIT_CONFIG_VALUE_0: "",
  GIT_CONFIG_KEY_1: "credential.helper",
  GIT_CONFIG_VALUE_1: "",
  GIT_CONFIG_KEY_2: "core.askPass",
  GIT_CONFIG_VALUE_2: "false",
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  GIT_ASKPASS: "false",
  SSH_ASKPASS: "false",
  SSH_ASKPASS_REQUIRE: "never",
  GIT_SSH_COMMAND: "false",
  SSH_AUTH_SOCK: "",
  GITHUB_TOKEN: "",
  GH_TOKEN: "",
  GITHUB_ENTERPRISE_TOKEN: "",
  GH_ENTERPRISE_TOKEN: "",
  OTTO_ADO_PAT: "",
  SYSTEM_ACCESSTOKEN: "",
  AZURE_DEVOPS_EXT_PAT: "",
  OPENCODE_SERVER_PASSWORD: "",
  OPENCODE_SERVER_USERNAME: "",
};

describe("pushBlockingEnv", () => {
  it("from an empty environment: every push sent nowhere, no helper, no prompt, no ssh, no token, no server login", () => {
    expect(pushBlockingEnv({ env: {} })).toEqual(BASE);
    expect(BLOCKED_PUSH_URL).toBe("/otto-blocks-pushes-from-sessions/otto-pushes-for-you-after-its-checks/");
  });

  it("the user's GIT_CONFIG_n entries blanked beyond otto's three, the count otto's; only names of that exact shape", () => {
    const out = pushBlockingEnv({
      env: {
        GIT_CONFIG_COUNT: "4",
        GIT_CONFIG_KEY_3: "http.extraheader",
        GIT_CONFIG_VALUE_3: "AUTHORIZATION: bearer x",
        GIT_CONFIG_KEY_12: "a",
        XGIT_CONFIG_KEY_0: "kept",
        GIT_CONFIG_KEY_0X: "kept",
        GIT_CONFIG_KEY_: "kept",
      },
    });
    expect(out).toEqual({ ...BASE, GIT_CONFIG_KEY_3: "", GIT_CONFIG_VALUE_3: "", GIT_CONFIG_KEY_12: "" });
  });

  it("with a configured token: any variable holding it is blanked, tokens under eight characters are not searched for; an empty folder for the CLIs", () => {
    const out = pushBlockingEnv({
      env: { MY_CI: "x-abcdefgh-y", SHORT: "1234567", OTHER: "fine", EMPTY: "" },
      secrets: ["abcdefgh", "1234567"],
      emptyConfigDir: "/tmp/empty",
    });
    expect(out).toEqual({ ...BASE, MY_CI: "", GH_CONFIG_DIR: "/tmp/empty", AZURE_CONFIG_DIR: "/tmp/empty" });
    expect(pushBlockingEnv({ env: { A: "abcdefgh" }, emptyConfigDir: "" })).toEqual(BASE);
  });
});

describe("protectedVariables and guardedEnvironment", () => {
  it("every variable otto sets, and git's own ways to read other config, run another ssh or git", () => {
    expect(protectedVariables()).toEqual([
      ...Object.keys(BASE),
      "GIT_CONFIG_PARAMETERS",
      "GIT_CONFIG",
      "GIT_CONFIG_GLOBAL",
      "GIT_CONFIG_SYSTEM",
      "GIT_CONFIG_NOSYSTEM",
      "GIT_SSH",
      "GIT_EXEC_PATH",
    ]);
  });

  it("the user's environment with the guard's laid over it; the secrets and the empty folder passed on", () => {
    expect(guardedEnvironment({ PATH: "/bin", GITHUB_TOKEN: "ghp_x", MINE: "zz-secretvalue" }, ["secretvalue"], "/e")).toEqual({
      PATH: "/bin",
      ...BASE,
      MINE: "",
      GH_CONFIG_DIR: "/e",
      AZURE_CONFIG_DIR: "/e",
    });
    expect(guardedEnvironment({ PATH: "/bin", MINE: "zz-secretvalue" })).toEqual({ PATH: "/bin", MINE: "zz-secretvalue", ...BASE });
  });
});
