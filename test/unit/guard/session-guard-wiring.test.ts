import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../../src/core/log.ts";
import { GuardBlocked, SessionGuard } from "../../../src/guard/session-guard.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";

/*
 * session-guard.ts's wiring, fast: which sessions are guarded, and where each hook sends a call
 * (host-runners.ts, running-commands.ts, tool-paths.ts, tool-args.ts, classify-command.ts, the
 * sandbox, control-settle.ts, the redaction), in a plain folder with its own HOME (no repository
 * to make: git finds none, and the guard reads no alias). Each module's own rules are tested
 * beside it; session-guard-hooks.test.ts and session-guard.test.ts drive the same hooks in real
 * repositories.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
const TOKEN = "ghp_WiringToken0123456789abcdefghijklmnop";

let home: string | undefined;
afterEach(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function setup(options: { config?: object; secrets?: string[]; serverUrl?: string; path?: string } = {}) {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-guard-wiring-")));
  const dir = path.join(home, "tree");
  fs.mkdirSync(dir);
  if (options.config) {
    fs.mkdirSync(path.join(home, "config", "otto"), { recursive: true });
    fs.writeFileSync(path.join(home, "config", "otto", "otto.jsonc"), JSON.stringify(options.config));
  }
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
    PATH: options.path ?? process.env.PATH ?? "/usr/bin:/bin",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CEILING_DIRECTORIES: home,
  };
  const logs: Array<[string, string, unknown]> = [];
  const log: Logger = { log: (level, message, extra) => logs.push([level, message, extra]) };
  const clock = { now: 1_000_000, step: 0 };
  const guard = new SessionGuard({
    directory: dir,
    env,
    log,
    now: () => (clock.now += clock.step),
    ...(options.secrets ? { secrets: () => options.secrets! } : {}),
    ...(options.serverUrl ? { serverUrl: options.serverUrl } : {}),
  });
  guard.track("ses_1");
  const tool = (name: string, args: Record<string, unknown>, extra: { sessionID?: string; callID?: string } = {}) =>
    guard.beforeTool({ tool: name, sessionID: extra.sessionID ?? "ses_1", ...(extra.callID ? { callID: extra.callID } : {}) }, { args });
  return { guard, dir, env, logs, clock, tool, home };
}

describe("which sessions are guarded", () => {
  it("otto's own sessions, those running one of its subagents and their subagents; never the user's", () => {
    const { guard } = setup();
    guard.noteAgent("ses_exec", "otto-executor");
    guard.noteAgent("ses_user", "build");
    guard.noteAgent("ses_plain", "otto");
    guard.noteAgent("ses_none", undefined);
    guard.noteAgent("ses_named", "my-otto-executor");
    guard.noteSession("ses_child", "ses_exec");
    guard.noteSession("ses_user_child", "ses_user");
    guard.noteSession("ses_orphan", undefined);
    const ids = ["ses_1", "ses_exec", "ses_child", "ses_user", "ses_plain", "ses_none", "ses_named", "ses_user_child", "ses_orphan"];
    expect(ids.filter((id) => guard.isGuarded(id))).toEqual(["ses_1", "ses_exec", "ses_child"]);
    expect(guard.isGuarded(undefined)).toBe(false);
  });

  it("a session that is not guarded: its calls, shell and results are left as they are", async () => {
    const { guard, tool, dir } = setup({ secrets: ["runtime-secret-value"] });
    const args = { command: "git push origin HEAD" };
    await tool("bash", args, { sessionID: "ses_user" });
    expect(args.command).toBe("git push origin HEAD");
    const read = { filePath: "a.txt" };
    await tool("read", read, { sessionID: "ses_user" });
    expect(read.filePath).toBe("a.txt");
    const env: Record<string, string> = { GITHUB_TOKEN: "x" };
    await guard.shellEnv({ cwd: dir, sessionID: "ses_user" }, { env });
    await guard.shellEnv({ cwd: dir }, { env });
    expect(env).toEqual({ GITHUB_TOKEN: "x" });
    const out = { output: "runtime-secret-value" };
    await guard.afterTool({ tool: "bash", sessionID: "ses_user" }, out);
    expect(out.output).toBe("runtime-secret-value");
  });
});

describe("the file tools", () => {
  it("refused while the instance's lsp or formatter is on, the bash tool not; allowed again once off", async () => {
    const { guard, tool } = setup();
    guard.noteHostConfig({ lsp: true });
    const error = await tool("read", { filePath: "a.txt" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardBlocked);
    expect((error as Error).message).toMatch(/^Otto blocked this: read while OpenCode's "lsp" is on\./);
    await expect(tool("bash", { command: "true" })).resolves.toBeUndefined();
    guard.noteHostConfig({ lsp: false });
    await expect(tool("read", { filePath: "a.txt" })).resolves.toBeUndefined();
  });

  it("a credential store, a git control file or OpenCode's config is refused, naming the tool; the paths OpenCode opens are the judged ones", async () => {
    const { tool, dir, home } = setup();
    const key = path.join(home, ".ssh", "id_ed25519");
    await expect(tool("read", { filePath: key })).rejects.toThrow(`Otto blocked this: read on ${key}, where credentials live`);
    await expect(tool("grep", { path: path.join(home, ".ssh") })).rejects.toThrow(/^Otto blocked this: grep on /);
    await expect(tool("glob", { path: path.join(home, ".ssh") })).rejects.toThrow(/^Otto blocked this: glob on /);
    // Another checkout's git directory, outside the tree: the file tools may not write there either (a read is the tree's rule's).
    const other = path.join(home, "other", ".git", "hooks", "pre-commit");
    await expect(tool("write", { filePath: other })).rejects.toThrow(`Otto blocked this: write on ${other}. Sessions otto runs`);
    await expect(tool("read", { filePath: other })).resolves.toBeUndefined();
    await expect(tool("write", { filePath: ".opencode/plugin/p.ts" })).rejects.toThrow(
      /^Otto blocked this: write on \.opencode\/plugin\/p\.ts: OpenCode configuration/,
    );
    await expect(tool("edit", { filePath: "x/.git" })).rejects.toThrow(/^Otto blocked this: edit on x\/\.git/);
    await expect(tool("apply_patch", { patchText: "*** Add File: sub/.git/hooks/pre-commit\n" })).rejects.toThrow(/apply_patch on /);
    const args: Record<string, unknown> = { filePath: "src/a.ts", file_path: "b.ts", path: "", other: "c.ts" };
    await tool("write", args);
    expect(args).toEqual({ filePath: path.join(dir, "src", "a.ts"), file_path: path.join(dir, "b.ts"), path: "", other: "c.ts" });
    const list: Record<string, unknown> = { path: "sub" };
    await tool("list", list);
    expect(list.path).toBe(path.join(dir, "sub"));
    // Not a file tool: its arguments are not paths to judge.
    const todo: Record<string, unknown> = { path: "~/x", filePath: ".git/config" };
    await tool("todowrite", todo);
    expect(todo).toEqual({ path: "~/x", filePath: ".git/config" });
  });

  it("wait for the guarded shell commands running now: refused past the wait, run once the command ended (its after-hook, OpenCode's report, its session's end)", async () => {
    const { guard, tool, clock } = setup({ config: { sandbox: "off" } });
    await tool("bash", { command: "sleep 1" }, { callID: "call_1" });
    clock.step = 130_000;
    await expect(tool("read", { filePath: "a.txt" })).rejects.toThrow(/read while a shell command of this session's tree is still running/);
    await expect(tool("edit", { filePath: "a.txt" })).rejects.toThrow(/edit while a shell command/);
    guard.toolEnded("call_1");
    await expect(tool("read", { filePath: "b.txt" })).resolves.toBeUndefined();
    await tool("bash", { command: "sleep 2" }, { callID: "call_2" });
    await guard.afterTool({ tool: "bash", sessionID: "ses_1", callID: "call_2" }, { output: "" });
    await expect(tool("read", { filePath: "c.txt" })).resolves.toBeUndefined();
    await tool("bash", { command: "sleep 3" }, { callID: "call_3" });
    // A call without an id is not waited for.
    await tool("bash", { command: "sleep 4" });
    await guard.sessionEnded("ses_1");
    await expect(tool("glob", { pattern: "*" })).resolves.toBeUndefined();
    // Not a file tool: never waits.
    await tool("bash", { command: "sleep 5" }, { callID: "call_5" });
    await expect(tool("webfetch", { url: "https://example.com" })).resolves.toBeUndefined();
  });
});

describe("the bash tool", () => {
  it("refuses a push, OpenCode's own server (the plugin's URL and server.port) and a workdir in git's directory; logs why", async () => {
    const { tool, logs, dir } = setup({ serverUrl: "http://127.0.0.1:4096/", config: { sandbox: "off", server: { port: 4555 } } });
    await expect(tool("bash", { command: "git push origin HEAD" })).rejects.toThrow(
      /^Otto blocked this: .*git push.*Otto pushes for you after its checks pass/s,
    );
    expect(logs.filter(([, m]) => m === "otto guard: refused a session's command")).toEqual([
      ["info", "otto guard: refused a session's command", { reason: expect.stringContaining("git push") as unknown }],
    ]);
    await expect(tool("bash", { command: "curl http://localhost:4096/session" })).rejects.toThrow(/OpenCode's own server/);
    await expect(tool("bash", { command: "curl http://127.0.0.1:4555/session" })).rejects.toThrow(/OpenCode's own server/);
    await expect(tool("bash", { command: "curl http://127.0.0.1:4097/session" })).resolves.toBeUndefined();
    await expect(tool("bash", { command: "ls", workdir: ".git" })).rejects.toThrow(/running commands inside a git directory \(.*\.git\)/);
    await expect(tool("bash", { command: "ls", workdir: "a/.git/b" })).rejects.toThrow(/inside a git directory/);
    fs.mkdirSync(path.join(dir, "a", ".github"), { recursive: true });
    await expect(tool("bash", { command: "ls", workdir: "a/.github" })).resolves.toBeUndefined();
    // No command: an empty line, as typed.
    const empty: Record<string, unknown> = {};
    await tool("bash", empty);
    expect(empty).toEqual({ command: "" });
  });

  it("judges a workdir by where it resolves: a link out of the tree (to the home, another repository) or into git's directory is refused; one inside runs where it leads", async () => {
    const { tool, dir, home } = setup({ config: { sandbox: "off" } });
    const other = path.join(home, "billing");
    fs.mkdirSync(path.join(dir, "src", "lib"), { recursive: true });
    fs.mkdirSync(path.join(dir, ".git"));
    fs.mkdirSync(other);
    fs.symlinkSync(home, path.join(dir, "h"));
    fs.symlinkSync(other, path.join(dir, "link"));
    fs.symlinkSync(".git", path.join(dir, "g"));
    fs.symlinkSync(path.join("src", "lib"), path.join(dir, "lib"));
    await expect(tool("bash", { command: "echo x >> .bashrc", workdir: "h" })).rejects.toThrow(
      `running a command in ${path.join(dir, "h")}: a link in the tree leads outside it (to ${home})`,
    );
    await expect(tool("bash", { command: "ls", workdir: "link/sub" })).rejects.toThrow(
      `a link in the tree leads outside it (to ${path.join(other, "sub")})`,
    );
    await expect(tool("bash", { command: "ls", workdir: other })).rejects.toThrow(
      `running a command in ${other}, outside the session's folder (${dir})`,
    );
    await expect(tool("bash", { command: "ls", workdir: "g" })).rejects.toThrow(`inside a git directory (${path.join(dir, ".git")})`);
    const inside: Record<string, unknown> = { command: "ls", workdir: "lib" };
    await tool("bash", inside);
    expect(inside.workdir).toBe(path.join(dir, "src", "lib"));
    const plain: Record<string, unknown> = { command: "ls", workdir: "src" };
    await tool("bash", plain);
    expect(plain.workdir).toBe(path.join(dir, "src"));
    const none: Record<string, unknown> = { command: "ls" };
    await tool("bash", none);
    expect(none.workdir).toBeUndefined();
  });

  it("refuses calls to the configured forge hosts, and runs the scripts' pushes past no one", async () => {
    const { tool, dir } = setup({ config: { sandbox: "off", pr: { providers: { github: { hosts: ["Git.Corp.Example"] } } } } });
    await expect(tool("bash", { command: "curl https://git.corp.example/x" })).rejects.toThrow(/Otto blocked this/);
    fs.writeFileSync(path.join(dir, "ship.sh"), "git push origin HEAD\n");
    await expect(tool("bash", { command: "sh ship.sh" })).rejects.toThrow(/git push/);
    fs.mkdirSync(path.join(dir, "sub"));
    fs.writeFileSync(path.join(dir, "sub", "ship.sh"), "git push origin HEAD\n");
    await expect(tool("bash", { command: "sh ship.sh", workdir: "sub" })).rejects.toThrow(/git push/);
  });

  it("sandbox off: the line runs as typed and nothing is said; a reviewer's line as typed, its reads of credential stores refused", async () => {
    const { guard, tool, logs, home } = setup({ config: { sandbox: "off" } });
    const args = { command: "npm test" };
    await tool("bash", args);
    expect(args.command).toBe("npm test");
    expect(logs).toEqual([]);
    guard.noteAgent("ses_rev", "otto-reviewer");
    // A message without an agent leaves the session's agent as it was.
    guard.noteAgent("ses_rev", undefined);
    await expect(tool("bash", { command: "git push origin HEAD" }, { sessionID: "ses_rev" })).rejects.toThrow(/git push/);
    const rev = { command: "git diff HEAD~1" };
    await tool("bash", rev, { sessionID: "ses_rev" });
    expect(rev.command).toBe("git diff HEAD~1");
    await expect(tool("bash", { command: "cat ~/.git-credentials" }, { sessionID: "ses_rev" })).rejects.toThrow(
      "Otto blocked this: reading ~/.git-credentials, where credentials live.",
    );
    await expect(tool("bash", { command: `cat ${home}/.netrc` }, { sessionID: "ses_rev" })).rejects.toThrow(/where credentials live/);
    // An executor's reads are the sandbox's business, not refused by their words.
    await expect(tool("bash", { command: "cat ~/.git-credentials" })).resolves.toBeUndefined();
  });

  it("no sandbox on the machine: as typed, said once; a config that requires one refuses the command, failing closed", async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "otto-guard-bin-"));
    try {
      for (const t of ["git", "sh"]) fs.symlinkSync(path.join("/usr/bin", t), path.join(bin, t));
      const s = setup({ path: bin });
      const args = { command: "npm test" };
      await s.tool("bash", args);
      await s.tool("bash", { command: "npm run lint" });
      expect(args.command).toBe("npm test");
      expect(s.logs.filter(([, m]) => m.startsWith("otto: no sandbox for its sessions' commands (")).map(([l]) => l)).toEqual(["warn"]);
      fs.rmSync(home!, { recursive: true, force: true });
      const r = setup({ path: bin, config: { sandbox: "required" } });
      await expect(r.tool("bash", { command: "npm test" })).rejects.toThrow(
        /^Otto blocked this: a command otto could not check \(otto.jsonc sets sandbox: "required".+\nNext step: To get one: .+\)\./s,
      );
      expect(r.logs.some(([, m]) => m.startsWith("otto: no sandbox"))).toBe(false);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it.skipIf(!sandboxed || process.platform !== "linux")(
    "a data folder otto may not write (the sandbox's launcher goes there): the command is refused, naming the folder and what to do",
    async () => {
      const s = setup();
      // /sys takes no new folders, for root or anyone: the launcher cannot be written.
      s.env.XDG_DATA_HOME = "/sys/otto-guard-data";
      await expect(s.tool("bash", { command: "npm test" })).rejects.toThrow(
        /a command otto could not check \(E(PERM|ACCES): [^\n]*\/sys\/otto-guard-data[^\n]*\nNext step: Otto could not write \/sys\/otto-guard-data[^:]*: make it writable for the user running OpenCode .*\$XDG_DATA_HOME/s,
      );
    },
  );

  it.skipIf(!sandboxed)(
    "in the sandbox: the line is the launcher's, and what it leaves is settled after the call and at the session's end",
    async () => {
      const { guard, tool, dir } = setup();
      guard.noteAgent("ses_1", "otto-executor");
      const args = { command: "npm test" };
      await tool("bash", args, { callID: "call_1" });
      expect(args.command).toMatch(/^'.*\/otto\/sandbox\/run-[0-9a-f]{16}\.sh' 'npm test'$/);
      // A refused line is left as the model wrote it.
      const push = { command: "git push origin HEAD" };
      await expect(tool("bash", push)).rejects.toThrow(/git push/);
      expect(push.command).toBe("git push origin HEAD");
      // What the call left (as if it ran): moved out, and the session told.
      fs.mkdirSync(path.join(dir, ".opencode", "plugins"), { recursive: true });
      fs.writeFileSync(path.join(dir, ".opencode", "plugins", "x.js"), "export default {}\n");
      const out = { output: "ran" };
      await guard.afterTool({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, out);
      expect(fs.existsSync(path.join(dir, ".opencode"))).toBe(false);
      expect(out.output).toMatch(/^ran\n.*moved .*\.opencode.* out of the tree/);
      // A call whose after-hook never came: settled when the session ends.
      await tool("bash", { command: "npm test" }, { callID: "call_2" });
      fs.mkdirSync(path.join(dir, ".opencode"));
      await guard.sessionEnded("ses_1");
      expect(fs.existsSync(path.join(dir, ".opencode"))).toBe(false);
      // forget does the same.
      await tool("bash", { command: "npm test" }, { callID: "call_3" });
      fs.mkdirSync(path.join(dir, ".opencode"));
      guard.forget("ses_1");
      for (let i = 0; i < 100 && fs.existsSync(path.join(dir, ".opencode")); i++) await new Promise((r) => setTimeout(r, 20));
      expect(fs.existsSync(path.join(dir, ".opencode"))).toBe(false);
    },
  );
});

describe("the repeated-call stop, wired", () => {
  it("at the limit: the warning, the abort, the reason kept; an abort that fails is logged; without an abort the call is still refused", async () => {
    const { guard, tool, logs } = setup({ config: { sandbox: "off", limits: { repeated_tool_calls: 2 } } });
    const failing = new SessionGuard({ ...guard.deps, abort: () => Promise.reject(new Error("no such session")) });
    failing.track("ses_1");
    const read = (g: SessionGuard) => g.beforeTool({ tool: "read", sessionID: "ses_1" }, { args: { filePath: "a.txt" } });
    await read(failing);
    await expect(read(failing)).rejects.toThrow(
      /^Otto stopped: called read `.*a\.txt` with the same arguments 2 times, and ends this session/,
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(logs.map(([l, m, e]) => [l, m.replace(/`.*`/, "`…`"), e])).toEqual([
      [
        "warn",
        "otto: stopped: called read `…` with the same arguments 2 times (limits.repeated_tool_calls); aborting session ses_1",
        undefined,
      ],
      ["warn", "otto: could not abort session ses_1", { error: "no such session" }],
    ]);
    // The guard built without an abort: refused all the same.
    await tool("read", { filePath: "b.txt" });
    await expect(tool("read", { filePath: "b.txt" })).rejects.toThrow(/^Otto stopped: /);
    expect(guard.stopReason("ses_1")).toMatch(/^stopped: called read/);
  });
});

describe("what a guarded tool shows the model, and its shell's environment", () => {
  it("redacts the plugin's secrets, the config's tokens and OpenCode's provider keys; a search leaves out secret-named files", async () => {
    // A config token of no known shape: only the config's value redacts it.
    const plainToken = "wiring-plain-config-secret-42";
    const { guard, home, dir } = setup({
      secrets: ["runtime-secret-value"],
      config: { pr: { providers: { github: { token: plainToken } } } },
    });
    fs.mkdirSync(path.join(home, "data", "opencode"), { recursive: true });
    fs.writeFileSync(
      path.join(home, "data", "opencode", "auth.json"),
      JSON.stringify({ p: { type: "api", key: "provider-key-0123456789" } }),
    );
    const out = { output: `a runtime-secret-value b ${plainToken} c provider-key-0123456789` };
    await guard.afterTool({ tool: "bash", sessionID: "ses_1" }, out);
    expect(out.output).toBe("a [REDACTED] b [REDACTED] c [REDACTED]");
    const found = { output: `${dir}/a.ts\n${dir}/.env\n${dir}/b.ts` };
    await guard.afterTool({ tool: "glob", sessionID: "ses_1" }, found);
    expect(found.output).not.toContain(".env");
    expect(found.output).toBe(`${dir}/a.ts\n${dir}/b.ts`);
    const grep = { output: `Found 2 matches\n${dir}/a.ts:\n  Line 1: x\n${dir}/.env:\n  Line 1: y` };
    await guard.afterTool({ tool: "grep", sessionID: "ses_1" }, grep);
    expect(grep.output).toBe(`Found 1 matches\n${dir}/a.ts:\n  Line 1: x`);
    const read = { output: ".env\nruntime-secret-value" };
    await guard.afterTool({ tool: "read", sessionID: "ses_1" }, read);
    expect(read.output).toBe(".env\n[REDACTED]");
    const object = { output: { text: "runtime-secret-value" } as unknown };
    await guard.afterTool({ tool: "bash", sessionID: "ses_1", callID: "call_x" }, object);
    expect(object.output).toEqual({ text: "runtime-secret-value" });
    // A call with nothing to settle: its output only redacted.
    const plain = { output: "plain" };
    await guard.afterTool({ tool: "bash", sessionID: "ses_1", callID: "call_y" }, plain);
    expect(plain.output).toBe("plain");
  });

  it("blanks the config's tokens in the shell and gives the forge CLIs an empty folder, made once; none where it cannot be made", async () => {
    const { guard, dir, home, env } = setup({ config: { pr: { providers: { github: { token: TOKEN } } } } });
    const shell: Record<string, string> = { FROM_OPENCODE: TOKEN, OPENCODE_SERVER_PASSWORD: "pw" };
    await guard.shellEnv({ cwd: dir, sessionID: "ses_1" }, { env: shell });
    const empty = path.join(home, "data", "otto", "guard", "no-forge-login");
    expect([shell.FROM_OPENCODE, shell.OPENCODE_SERVER_PASSWORD, shell.GH_CONFIG_DIR, shell.AZURE_CONFIG_DIR]).toEqual([
      "",
      "",
      empty,
      empty,
    ]);
    expect(fs.readdirSync(empty)).toEqual([]);
    fs.rmSync(empty, { recursive: true });
    const again: Record<string, string> = {};
    await guard.shellEnv({ cwd: dir, sessionID: "ses_1" }, { env: again });
    expect(again.GH_CONFIG_DIR).toBe(empty);
    expect(fs.existsSync(empty)).toBe(false);
    expect(env.HOME).toBe(home);
    fs.rmSync(path.join(home, "data"), { recursive: true, force: true });
    const other = new SessionGuard({ directory: dir, env, log: { log: () => undefined } });
    other.track("ses_1");
    fs.writeFileSync(path.join(home, "data"), "a file where the data folder would be");
    const none: Record<string, string> = {};
    await other.shellEnv({ cwd: dir, sessionID: "ses_1" }, { env: none });
    expect(none.GH_CONFIG_DIR).toBeUndefined();
    expect(none.GITHUB_TOKEN).toBe("");
  });
});
