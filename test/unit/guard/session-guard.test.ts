import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { SessionGuard, filesOf } from "../../../src/guard/session-guard.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

describe("SessionGuard", () => {
  let repo: Repo | undefined;
  let home: string | undefined;
  afterEach(() => {
    repo?.cleanup();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  async function guardIn(serverUrl?: string): Promise<SessionGuard> {
    repo = await createRepo();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-guard-"));
    const env = gitEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data") });
    return new SessionGuard({ directory: repo.dir, env, log: silentLogger, ...(serverUrl ? { serverUrl } : {}) });
  }

  it("refuses a guarded session's requests to the plugin's server URL and to server.port, and blanks the server's credentials", async () => {
    const guard = await guardIn("http://127.0.0.1:4096/");
    guard.track("ses_1");
    const bash = (command: string) => guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args: { command } });
    await expect(bash("curl -s -X POST http://localhost:4096/session")).rejects.toThrow(
      /Otto blocked this: curl to OpenCode's own server \(localhost:4096\)/,
    );
    // server.port's default (no otto.jsonc here): the detached watcher's server.
    await expect(bash("curl http://127.0.0.1:4097/session")).rejects.toThrow(/OpenCode's own server/);
    await expect(bash("curl http://127.0.0.1:3000/health")).resolves.toBeUndefined();
    const env: Record<string, string> = { OPENCODE_SERVER_PASSWORD: "from-the-server-process" };
    await guard.shellEnv({ cwd: repo!.dir, sessionID: "ses_1" }, { env });
    expect([env.OPENCODE_SERVER_PASSWORD, env.OPENCODE_SERVER_USERNAME]).toEqual(["", ""]);
  });

  it("runs an executor's line in the sandbox launcher, a reviewer's as typed (its patterns must match it), and refuses the reviewer's reads of credential stores and the read tool's everywhere", async () => {
    const guard = await guardIn();
    guard.noteAgent("ses_exec", "otto-executor");
    guard.noteAgent("ses_rev", "otto-reviewer");
    const args = (command: string): { command: string } => ({ command });
    const exec = args("npm test");
    await guard.beforeTool({ tool: "bash", sessionID: "ses_exec" }, { args: exec });
    const { detectSandbox } = await import("../../../src/sandbox/index.ts");
    if (detectSandbox().kind !== "none") expect(exec.command).toMatch(/^'.*\/otto\/sandbox\/run-[0-9a-f]{16}\.sh' 'npm test'$/);
    const rev = args("git diff HEAD~1");
    await guard.beforeTool({ tool: "bash", sessionID: "ses_rev" }, { args: rev });
    expect(rev.command).toBe("git diff HEAD~1");
    await expect(guard.beforeTool({ tool: "bash", sessionID: "ses_rev" }, { args: args("cat ~/.git-credentials") })).rejects.toThrow(
      /reading ~\/.git-credentials, where credentials live/,
    );
    await expect(guard.beforeTool({ tool: "bash", sessionID: "ses_rev" }, { args: args("head -5 $HOME/.netrc") })).rejects.toThrow(
      /where credentials live/,
    );
    // OpenCode never expands `~` (tool-spellings.test.ts): the home's stores by their real path.
    const key = path.join(home!, ".ssh", "id_ed25519");
    await expect(guard.beforeTool({ tool: "read", sessionID: "ses_exec" }, { args: { filePath: key } })).rejects.toThrow(
      `read on ${key}, where credentials live`,
    );
    await expect(
      guard.beforeTool({ tool: "read", sessionID: "ses_exec" }, { args: { filePath: path.join(repo!.dir, "README.md") } }),
    ).resolves.toBeUndefined();
  });

  it("guards the sessions otto created and those running otto's subagents, nothing else", async () => {
    const guard = await guardIn();
    guard.track("ses_runner");
    guard.noteAgent("ses_task", "otto-executor");
    guard.noteAgent("ses_user", "build");
    guard.noteAgent("ses_otto", "otto");
    expect(["ses_runner", "ses_task", "ses_user", "ses_otto", "ses_none"].map((id) => guard.isGuarded(id))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // A subagent a guarded session starts is guarded; one the user's session starts is not.
    guard.noteSession("ses_sub", "ses_task");
    guard.noteSession("ses_subsub", "ses_sub");
    guard.noteSession("ses_user_sub", "ses_user");
    guard.noteSession("ses_root", undefined);
    expect(["ses_sub", "ses_subsub", "ses_user_sub", "ses_root"].map((id) => guard.isGuarded(id))).toEqual([true, true, false, false]);

    const env: Record<string, string> = {};
    await guard.shellEnv({ cwd: repo!.dir, sessionID: "ses_user" }, { env });
    expect(env).toEqual({});
    await guard.shellEnv({ cwd: repo!.dir, sessionID: "ses_task" }, { env });
    expect(env.GITHUB_TOKEN).toBe("");
    expect(env.GIT_CONFIG_COUNT).toBe("3");
    expect(fs.existsSync(env.GH_CONFIG_DIR ?? "")).toBe(true);
  });

  it("refuses a guarded session's push with advice, resolving the checkout's aliases and scripts", async () => {
    const guard = await guardIn();
    guard.track("ses_1");
    await repo!.git(["config", "alias.ship", "push origin HEAD"]);
    fs.writeFileSync(path.join(repo!.dir, "p.sh"), "git push origin HEAD:refs/heads/main\n");
    const bash = (command: string, sessionID = "ses_1") => guard.beforeTool({ tool: "bash", sessionID }, { args: { command } });

    await expect(bash("git status && npm test")).resolves.toBeUndefined();
    await expect(bash("git ship")).rejects.toThrow(/Otto blocked this: git push\..*Otto pushes for you after its checks pass/);
    await expect(bash("./p.sh")).rejects.toThrow(/git push/);
    await expect(bash("git ship", "ses_other")).resolves.toBeUndefined();
    await expect(
      guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args: { command: "echo x > pre-push", workdir: ".git/hooks" } }),
    ).rejects.toThrow(/inside a git directory/);
  });

  it("refuses file tools on the git directory's config and hooks", async () => {
    const guard = await guardIn();
    guard.noteAgent("ses_1", "otto-crew");
    await expect(
      guard.beforeTool(
        { tool: "write", sessionID: "ses_1" },
        { args: { filePath: path.join(repo!.dir, ".git/hooks/pre-push"), content: "x" } },
      ),
    ).rejects.toThrow(/write on .*\.git\/hooks\/pre-push/);
    await expect(
      guard.beforeTool({ tool: "edit", sessionID: "ses_1" }, { args: { filePath: ".git/config", oldString: "a", newString: "b" } }),
    ).rejects.toThrow(/\.git\/config/);
    await expect(
      guard.beforeTool(
        { tool: "apply_patch", sessionID: "ses_1" },
        { args: { patchText: "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch" } },
      ),
    ).rejects.toThrow(/pre-commit/);
    await expect(
      guard.beforeTool({ tool: "write", sessionID: "ses_1" }, { args: { filePath: "src/.gitignore", content: "x" } }),
    ).resolves.toBeUndefined();
  });

  it("reads the files of a patch: headers with or without a space, diff paths as written and without a/ b/", () => {
    expect(filesOf({ patchText: "--- a/src/x.ts\n+++ b/src/x.ts\n@@\n*** Update File: y.ts\n*** Move to: .git/config" })).toEqual([
      "y.ts",
      ".git/config",
      "a/src/x.ts",
      "src/x.ts",
      "b/src/x.ts",
      "src/x.ts",
    ]);
    expect(filesOf({ patchText: "*** Add File:.git/hooks/pre-commit\n*** Add File: b/../.opencode/plugin/x.ts" })).toEqual([
      ".git/hooks/pre-commit",
      "b/../.opencode/plugin/x.ts",
    ]);
  });
});
