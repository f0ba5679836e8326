import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../../src/core/index.ts";
import { SessionGuard, filesOf } from "../../../src/guard/session-guard.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * The guard's hooks beyond the commands it classifies (session-guard.test.ts): what config it reads
 * and for how long, what a broken config leaves in force, the shell's environment, the redaction
 * of tool results, the workdir and the file paths of each tool.
 */

const TOKEN = "ghp_ConfigToken0123456789abcdefghijklmn";

let repo: Repo | undefined;
let home: string | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
});

interface Setup {
  guard: SessionGuard;
  env: Record<string, string>;
  logs: Array<[string, string, unknown]>;
  userConfig: (text: string) => void;
  clock: { now: number };
  bash: (command: string, extra?: Record<string, unknown>) => Promise<void>;
}

async function setup(deps: { secrets?: string[]; env?: Record<string, string>; noSandbox?: boolean } = {}): Promise<Setup> {
  repo = await createRepo();
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-guard-hooks-")));
  let env = gitEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data"), ...deps.env });
  if (deps.noSandbox) {
    // A PATH with git and a shell but no bubblewrap: the machine has no sandbox.
    const bin = path.join(home, "bin");
    fs.mkdirSync(bin);
    for (const tool of ["git", "sh"]) fs.symlinkSync(path.join("/usr/bin", tool), path.join(bin, tool));
    env = { ...env, PATH: bin };
  }
  const logs: Array<[string, string, unknown]> = [];
  const log = { log: (level: string, message: string, extra?: unknown) => void logs.push([level, message, extra]) } as unknown as Logger;
  const clock = { now: 1_000_000 };
  const guard = new SessionGuard({
    directory: repo.dir,
    env,
    log,
    now: () => clock.now,
    ...(deps.secrets ? { secrets: () => deps.secrets! } : {}),
  });
  guard.track("ses_1");
  const userConfig = (text: string) => {
    fs.mkdirSync(path.join(home!, "config", "otto"), { recursive: true });
    fs.writeFileSync(path.join(home!, "config", "otto", "otto.jsonc"), text);
  };
  const bash = (command: string, extra: Record<string, unknown> = {}) =>
    guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args: { command, ...extra } });
  return { guard, env, logs, userConfig, clock, bash };
}

describe("the guard's config: forge hosts, its lifetime, a broken file", () => {
  it("refuses calls to the configured forge hosts, in any case; reads the config again after a minute, not before", async () => {
    const s = await setup();
    s.userConfig(
      JSON.stringify({ pr: { providers: { github: { api_url: "https://GHE.Example.com/api/v3", hosts: ["Git.Corp.Example"] } } } }),
    );
    await expect(s.bash("curl https://ghe.example.com/api/v3/repos/o/r/pulls")).rejects.toThrow(/Otto blocked this/);
    await expect(s.bash("curl https://git.corp.example/o/r")).rejects.toThrow(/Otto blocked this/);
    await expect(s.bash("curl https://ado.corp.example/o/r")).resolves.toBeUndefined();
    s.userConfig(JSON.stringify({ pr: { providers: { ado: { base_url: "https://ADO.corp.example" } } } }));
    s.clock.now += 59_999;
    await expect(s.bash("curl https://ado.corp.example/o/r")).resolves.toBeUndefined();
    s.clock.now += 1;
    await expect(s.bash("curl https://ado.corp.example/o/r")).rejects.toThrow(/Otto blocked this/);
    await expect(s.bash("curl https://ghe.example.com/api/v3/repos")).resolves.toBeUndefined();
  });

  it("a broken otto.jsonc: one warning, and the defaults still hold (server.port, the repeated-call limit)", async () => {
    const s = await setup();
    s.userConfig("{ not json");
    await expect(s.bash("curl http://127.0.0.1:4097/session")).rejects.toThrow(/OpenCode's own server/);
    expect(s.logs.filter(([, m]) => m === "otto guard: could not read otto's config; using the defaults").map(([l]) => l)).toEqual([
      "warn",
    ]);
    for (let i = 1; i < 5; i++) await s.guard.beforeTool({ tool: "read", sessionID: "ses_1" }, { args: { filePath: "README.md" } });
    await expect(s.guard.beforeTool({ tool: "read", sessionID: "ses_1" }, { args: { filePath: "README.md" } })).rejects.toThrow(
      /the same call gives the same result/,
    );
  });
});

describe("the shell's environment", () => {
  it("blanks the config's token values wherever the environment holds them, and gives the forge CLIs an empty config folder, made once", async () => {
    const s = await setup({ env: { MY_VAR: `x${TOKEN}` } });
    s.userConfig(JSON.stringify({ pr: { providers: { github: { token: TOKEN } } } }));
    const env: Record<string, string> = { FROM_OPENCODE: TOKEN };
    await s.guard.shellEnv({ cwd: repo!.dir, sessionID: "ses_1" }, { env });
    expect(env.MY_VAR).toBe("");
    expect(env.FROM_OPENCODE).toBe("");
    const dir = path.join(home!, "data", "otto", "guard", "no-forge-login");
    expect(env.GH_CONFIG_DIR).toBe(dir);
    expect(env.AZURE_CONFIG_DIR).toBe(dir);
    expect(fs.readdirSync(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true });
    const again: Record<string, string> = {};
    await s.guard.shellEnv({ cwd: repo!.dir, sessionID: "ses_1" }, { env: again });
    expect(again.GH_CONFIG_DIR).toBe(dir);
  });

  it("where the empty folder cannot be made, the forge CLIs' folders are left alone and the rest holds", async () => {
    const s = await setup();
    fs.writeFileSync(path.join(home!, "data"), "a file where the data folder would be");
    const env: Record<string, string> = {};
    await s.guard.shellEnv({ cwd: repo!.dir, sessionID: "ses_1" }, { env });
    expect(env.GH_CONFIG_DIR).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBe("");
  });
});

describe("what a guarded tool shows the model", () => {
  it("redacts the plugin's known secrets, the config's tokens and OpenCode's provider keys; leaves others' sessions and non-text alone", async () => {
    const s = await setup({ secrets: ["runtime-secret-value"] });
    s.userConfig(JSON.stringify({ pr: { providers: { github: { token: TOKEN } } } }));
    fs.mkdirSync(path.join(home!, "data", "opencode"), { recursive: true });
    fs.writeFileSync(
      path.join(home!, "data", "opencode", "auth.json"),
      JSON.stringify({ p: { type: "api", key: "provider-key-0123456789" } }),
    );
    const out = { output: `a runtime-secret-value b ${TOKEN} c provider-key-0123456789` };
    await s.guard.afterTool({ tool: "bash", sessionID: "ses_1" }, out);
    expect(out.output).toBe("a [REDACTED] b [REDACTED] c [REDACTED]");
    const other = { output: "runtime-secret-value" };
    await s.guard.afterTool({ tool: "bash", sessionID: "ses_other" }, other);
    expect(other.output).toBe("runtime-secret-value");
    const empty = { output: "" };
    await s.guard.afterTool({ tool: "bash", sessionID: "ses_1" }, empty);
    expect(empty.output).toBe("");
    const object = { output: { text: "runtime-secret-value" } as unknown };
    await s.guard.afterTool({ tool: "bash", sessionID: "ses_1" }, object);
    expect(object.output).toEqual({ text: "runtime-secret-value" });
  });
});

describe("where a command runs and which files a tool names", () => {
  it("a workdir inside git's directory is refused, relative or absolute; an empty one is the session's folder", async () => {
    const s = await setup();
    const blocked = /running commands inside a git directory/;
    await expect(s.bash("ls", { workdir: ".git" })).rejects.toThrow(blocked);
    await expect(s.bash("ls", { workdir: path.join(repo!.dir, "sub", ".git", "x") })).rejects.toThrow(blocked);
    await expect(s.bash("ls", { workdir: "" })).resolves.toBeUndefined();
    await expect(s.bash("ls", { workdir: 3 })).resolves.toBeUndefined();
    await expect(s.guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args: undefined })).resolves.toBeUndefined();
  });

  it("a script larger than 256 KiB, or a folder, is not read for pushes; a small one is", async () => {
    const s = await setup();
    fs.writeFileSync(path.join(repo!.dir, "small.sh"), "git push origin HEAD\n");
    fs.writeFileSync(path.join(repo!.dir, "big.sh"), `git push origin HEAD\n${"#".repeat(256 * 1024)}\n`);
    fs.writeFileSync(path.join(repo!.dir, "edge.sh"), `git push origin HEAD\n${"#".repeat(256 * 1024 - 21)}`);
    expect(fs.statSync(path.join(repo!.dir, "edge.sh")).size).toBe(256 * 1024);
    await expect(s.bash("sh small.sh")).rejects.toThrow(/git push/);
    await expect(s.bash("sh edge.sh")).rejects.toThrow(/git push/);
    await expect(s.bash("sh big.sh")).resolves.toBeUndefined();
  });

  it("aliases are read with their names in lower case", async () => {
    const s = await setup();
    await repo!.git(["config", "alias.ShipIt", "push origin HEAD"]);
    await expect(s.bash("git shipit")).rejects.toThrow(/git push/);
  });

  it("file tools name their paths under filePath, file_path or path, and in patch, patchText or input", async () => {
    expect(
      filesOf({
        filePath: "a",
        file_path: "b",
        path: "c",
        other: "d",
        patch: "+++ b/e\n--- /dev/null\n+++ \n",
        input: "*** Delete File: f\n*** Add File:   \n",
      }),
    ).toEqual(["a", "b", "c", "b/e", "e", "f"]);
    expect(filesOf({ filePath: 3, patchText: 4 })).toEqual([]);
  });

  it("a write to OpenCode's configuration in the tree is refused with the tool's name; ~ is a folder of the tree, as OpenCode opens it (never the home)", async () => {
    const s = await setup();
    await expect(
      s.guard.beforeTool({ tool: "write", sessionID: "ses_1" }, { args: { filePath: ".opencode/plugin/p.ts" } }),
    ).rejects.toThrow(
      "Otto blocked this: write on .opencode/plugin/p.ts: OpenCode configuration, which the next OpenCode start would load outside the sandbox. Sessions otto runs cannot push, merge, call the forge, or change the checkout's git configuration, hooks or the environment otto set. Otto pushes for you after its checks pass: commit your work (if your task says to) and stop.",
    );
    await expect(s.guard.beforeTool({ tool: "glob", sessionID: "ses_1" }, { args: { path: "~/config/otto" } })).resolves.toBeUndefined();
    await expect(s.guard.beforeTool({ tool: "list", sessionID: "ses_1" }, { args: { path: "~" } })).resolves.toBeUndefined();
    await expect(
      s.guard.beforeTool({ tool: "todowrite", sessionID: "ses_1" }, { args: { path: "~/config/otto" } }),
    ).resolves.toBeUndefined();
    await expect(s.guard.beforeTool({ tool: "edit", sessionID: "ses_1" }, { args: { filePath: "x/.git" } })).rejects.toThrow(
      /edit on x\/\.git/,
    );
  });

  it("a reviewer's reading command naming a credential store in any spelling is refused; without a credential store named it runs as typed", async () => {
    const s = await setup();
    s.guard.noteAgent("ses_rev", "otto-reviewer");
    s.guard.noteAgent("ses_rev", undefined);
    const rev = (command: string) => s.guard.beforeTool({ tool: "bash", sessionID: "ses_rev" }, { args: { command } });
    await expect(rev("cat ${HOME}/.git-credentials")).rejects.toThrow("reading ${HOME}/.git-credentials, where credentials live");
    await expect(rev(`cat ${home}/.git-credentials`)).rejects.toThrow(`reading ${home}/.git-credentials, where credentials live`);
    const args = { command: "cat README.md" };
    await s.guard.beforeTool({ tool: "bash", sessionID: "ses_rev" }, { args });
    expect(args.command).toBe("cat README.md");
  });
});

describe("without a sandbox on the machine", () => {
  it("a command runs as typed, and otto says once that there is no sandbox", async () => {
    const s = await setup({ noSandbox: true });
    const args = { command: "echo hi" };
    await s.guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args });
    await s.guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args: { command: "echo again" } });
    expect(args.command).toBe("echo hi");
    const said = s.logs.filter(([, m]) => m.startsWith("otto: no sandbox for its sessions' commands ("));
    expect(said.map(([l]) => l)).toEqual(["warn"]);
    expect(said[0]![1]).toMatch(/\); the environment and command guards still hold\. \/otto-config show says which sandbox is active\.$/);
  });

  it("sandbox off in the config: as typed, and nothing said", async () => {
    const s = await setup({ noSandbox: true });
    s.userConfig(JSON.stringify({ sandbox: "off" }));
    const args = { command: "echo hi" };
    await s.guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args });
    expect(args.command).toBe("echo hi");
    expect(s.logs.filter(([, m]) => m.startsWith("otto: no sandbox"))).toEqual([]);
  });
});
