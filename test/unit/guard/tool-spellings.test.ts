import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { SessionGuard } from "../../../src/guard/session-guard.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";
import { testRoot } from "../../support/dev-home.ts";

/*
 * The file tools' paths as OpenCode opens them, and what OpenCode's searches show. OpenCode 1.18's
 * read, write and edit resolve a relative path against the session's directory and never expand
 * `~`; its grep and glob search with ripgrep's `--hidden`, so a secret-named file that git does
 * not ignore is searched. The home is outside /tmp (dev-home.ts).
 */

describe("file tools: the path OpenCode opens, the results OpenCode's searches show", () => {
  let repo: Repo | undefined;
  let home: string | undefined;
  afterEach(() => {
    repo?.cleanup();
    if (repo) fs.rmSync(path.dirname(repo.dir), { recursive: true, force: true });
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  async function guardIn(): Promise<{ guard: SessionGuard; repo: Repo; home: string }> {
    repo = await createRepo({ dir: path.join(fs.mkdtempSync(path.join(testRoot(), "otto-tilde-")), "repo") });
    home = fs.mkdtempSync(path.join(testRoot(), "otto-tilde-home-"));
    const env = gitEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share") });
    const guard = new SessionGuard({ directory: repo.dir, env, log: silentLogger });
    guard.track("ses_1");
    return { guard, repo, home };
  }

  it("judges `~/x` as `<tree>/~/x`, which a sandboxed `ln -s \"$HOME\" '~'` makes the home: write and read are refused", async () => {
    const { guard, repo, home } = await guardIn();
    fs.writeFileSync(path.join(home, ".profile"), "export DEPLOY_TOKEN=profile-secret\n");
    // What the sandboxed command left in the tree (the hostile step), and that it leads home.
    fs.symlinkSync(home, path.join(repo.dir, "~"));
    expect(fs.readFileSync(path.join(repo.dir, "~", ".profile"), "utf8")).toContain("profile-secret");
    const call = (tool: string, args: Record<string, unknown>) => guard.beforeTool({ tool, sessionID: "ses_1" }, { args });
    await expect(call("write", { filePath: "~/.bash_aliases", content: "alias ls=pwned\n" })).rejects.toThrow(
      /write on ~\/.bash_aliases: a link in the tree leads outside it/,
    );
    await expect(call("read", { filePath: "~/.profile" })).rejects.toThrow(/read on ~\/.profile: a link in the tree leads outside it/);
    await expect(call("edit", { filePath: "~/.gitconfig", oldString: "", newString: "x" })).rejects.toThrow(
      /a link in the tree leads outside it/,
    );
    // Control: the same tools in the tree are let through.
    await expect(call("write", { filePath: "src/new.js", content: "export {};\n" })).resolves.toBeUndefined();
    await expect(call("read", { filePath: "README.md" })).resolves.toBeUndefined();
  });

  it("leaves secret-named files out of grep's and glob's results and recounts grep's matches", async () => {
    const { guard, repo } = await guardIn();
    const env = path.join(repo.dir, "config", ".env");
    const key = path.join(repo.dir, "deploy.pem");
    const app = path.join(repo.dir, "src", "app.js");
    // OpenCode 1.18's grep output (its tool's own format) for a search that reached a `.env` and a key.
    const grep = {
      output: [
        "Found 4 matches",
        `${env}:`,
        "  Line 1: API_TOKEN=tok-in-dotenv-123",
        "  Line 2: DB_PASSWORD=pw-in-dotenv-456",
        "",
        `${app}:`,
        "  Line 3: const token = process.env.API_TOKEN;",
        "",
        `${key}:`,
        "  Line 1: -----BEGIN PRIVATE KEY----- token",
      ].join("\n"),
    };
    await guard.afterTool({ tool: "grep", sessionID: "ses_1" }, grep);
    expect(grep.output).toBe(["Found 1 matches", `${app}:`, "  Line 3: const token = process.env.API_TOKEN;"].join("\n"));
    const onlySecrets = { output: ["Found 1 matches", `${env}:`, "  Line 1: API_TOKEN=tok-in-dotenv-123"].join("\n") };
    await guard.afterTool({ tool: "grep", sessionID: "ses_1" }, onlySecrets);
    expect(onlySecrets.output).toBe("No files found");
    const glob = { output: [env, app, path.join(repo.dir, ".env.example")].join("\n") };
    await guard.afterTool({ tool: "glob", sessionID: "ses_1" }, glob);
    expect(glob.output.split("\n")).toEqual([app, path.join(repo.dir, ".env.example")]);
    // Not a guarded session: its output is the user's own, untouched.
    const user = { output: `Found 1 matches\n${env}:\n  Line 1: API_TOKEN=tok-in-dotenv-123` };
    await guard.afterTool({ tool: "grep", sessionID: "ses_user" }, user);
    expect(user.output).toContain("tok-in-dotenv-123");
  });
  it("refuses a guarded session's file tools while the instance's lsp or formatter is on (they run the tree's programs outside the sandbox), and says how to turn them off", async () => {
    const { guard } = await guardIn();
    const read = () => guard.beforeTool({ tool: "read", sessionID: "ses_1" }, { args: { filePath: "README.md" } });
    const write = () => guard.beforeTool({ tool: "write", sessionID: "ses_1" }, { args: { filePath: "src/a.js", content: "x\n" } });
    // Control: OpenCode 1.18's defaults (both absent, so off) and explicit false let the tools through.
    guard.noteHostConfig({});
    await expect(read()).resolves.toBeUndefined();
    guard.noteHostConfig({ lsp: false, formatter: false });
    await expect(write()).resolves.toBeUndefined();
    guard.noteHostConfig({ lsp: true });
    await expect(read()).rejects.toThrow(/read while OpenCode's "lsp" is on[\s\S]*"lsp": false/);
    guard.noteHostConfig({ formatter: { prettier: { command: ["prettier", "$FILE"] } } });
    await expect(write()).rejects.toThrow(/write while OpenCode's "formatter" is on/);
    // The user's own sessions are not otto's to refuse.
    await expect(
      guard.beforeTool({ tool: "write", sessionID: "ses_user" }, { args: { filePath: "src/a.js", content: "x\n" } }),
    ).resolves.toBeUndefined();
  });
  it("a file tool waits while a guarded shell command of the tree runs (no sandboxed process alive to flip a link), and OpenCode gets the path otto judged", async () => {
    const { guard, repo } = await guardIn();
    fs.mkdirSync(path.join(repo.dir, "src"), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, "src", "a.js"), "export {};\n");
    fs.symlinkSync("src", path.join(repo.dir, "lnk"));
    await guard.beforeTool({ tool: "bash", sessionID: "ses_1", callID: "call_sh" }, { args: { command: "sleep 1" } });
    const args: Record<string, unknown> = { filePath: "lnk/a.js" };
    let done = false;
    const read = guard.beforeTool({ tool: "read", sessionID: "ses_1", callID: "call_read" }, { args }).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The shell command has not ended: the read has not been let through.
    expect(done).toBe(false);
    await guard.afterTool({ tool: "bash", sessionID: "ses_1", callID: "call_sh" }, { output: "" });
    await read;
    expect(done).toBe(true);
    // The link is resolved before OpenCode opens the file: a later flip of `lnk` changes nothing.
    expect(args.filePath).toBe(path.join(repo.dir, "src", "a.js"));
  });

  it("a shell call that never ran (denied at its permission ask: no after-hook) stops holding the file tools once OpenCode reports its end, or its session's turn ends", async () => {
    const { guard, repo } = await guardIn();
    fs.writeFileSync(path.join(repo.dir, "a.js"), "export {};\n");
    const waits = async (end: () => Promise<void> | void) => {
      let done = false;
      const read = guard.beforeTool({ tool: "read", sessionID: "ses_1" }, { args: { filePath: "a.js" } }).then(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const held = !done;
      await end();
      await read;
      return held;
    };
    await guard.beforeTool({ tool: "bash", sessionID: "ses_1", callID: "call_denied" }, { args: { command: "npm test" } });
    expect(await waits(() => guard.toolEnded("call_denied"))).toBe(true);
    await guard.beforeTool({ tool: "bash", sessionID: "ses_1", callID: "call_denied2" }, { args: { command: "npm test" } });
    expect(await waits(() => guard.sessionEnded("ses_1"))).toBe(true);
  });
});
