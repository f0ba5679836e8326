import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { SessionGuard } from "../../../src/guard/session-guard.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { runCheck } from "../../../src/workspace/index.ts";
import { developerHome } from "../../support/dev-home.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * OpenCode's file tools run outside the sandbox and follow links. A sandboxed shell makes links in
 * the tree to the user's plugin folder and to OpenCode's auth store; the guard judges each path of
 * a file tool by where it resolves, and what the tool shows the model is redacted.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
const PROVIDER_KEY = "sk-ant-api03-DevHomeProviderKey0123456789abcdefghijk";

let repo: Repo | undefined;
let cleanups: Array<() => void> = [];
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  for (const c of cleanups) c();
  cleanups = [];
});

async function setup() {
  const dev = developerHome();
  cleanups.push(() => dev.cleanup());
  const env: Record<string, string> = { ...gitEnv(), ...dev.env };
  const plugins = path.join(dev.env.XDG_CONFIG_HOME, "opencode", "plugin");
  fs.mkdirSync(plugins, { recursive: true });
  const auth = path.join(dev.env.XDG_DATA_HOME, "opencode", "auth.json");
  fs.mkdirSync(path.dirname(auth), { recursive: true });
  fs.writeFileSync(auth, JSON.stringify({ anthropic: { type: "api", key: PROVIDER_KEY } }));
  repo = await createRepo({ dir: path.join(dev.root, "project"), remote: false });
  const guard = new SessionGuard({ directory: repo.dir, env, log: silentLogger });
  guard.noteAgent("ses_exec", "otto-executor");
  const tool = (tool: string, args: Record<string, unknown>) => guard.beforeTool({ tool, sessionID: "ses_exec" }, { args });
  return { dev, env, plugins, auth, dir: repo.dir, guard, tool };
}

describe.skipIf(!sandboxed)("file tools judged by where a path resolves (real bubblewrap)", () => {
  it("links a sandboxed shell made to the user's plugin folder and OpenCode's auth store are refused; the tree's own files are not", async () => {
    const { env, plugins, auth, dir, tool } = await setup();
    const made = await runCheck(`ln -s '${plugins}' plug && ln -s '${auth}' leak.txt && mkdir -p src && echo ok > src/a.ts`, {
      cwd: dir,
      sandbox: "auto",
      env,
      timeoutMs: 60_000,
    });
    expect(made.passed, made.output).toBe(true);
    // Positive control: the links lead where the attack wants them to.
    expect(fs.realpathSync(path.join(dir, "plug"))).toBe(fs.realpathSync(plugins));
    expect(fs.readFileSync(path.join(dir, "leak.txt"), "utf8")).toContain(PROVIDER_KEY);

    await expect(tool("write", { filePath: path.join(dir, "plug", "evil.js"), content: "x" })).rejects.toThrow(
      /write on .*plug\/evil\.js.*OpenCode's or otto's configuration|link in the tree leads outside/,
    );
    await expect(tool("read", { filePath: path.join(dir, "leak.txt") })).rejects.toThrow(/read on .*leak\.txt/);
    await expect(tool("read", { filePath: "leak.txt" })).rejects.toThrow(/read on leak\.txt/);
    await expect(tool("list", { path: path.join(dir, "plug") })).rejects.toThrow(/list on /);
    await expect(tool("write", { filePath: path.join(dir, ".opencode", "plugins", "x.js"), content: "x" })).rejects.toThrow(
      /OpenCode configuration/,
    );
    await expect(tool("edit", { filePath: path.join(dir, "opencode.json"), oldString: "a", newString: "b" })).rejects.toThrow(
      /OpenCode configuration/,
    );
    await expect(tool("write", { filePath: path.join(dir, ".git", "info", "x"), content: "x" })).rejects.toThrow(/git/);
    // The tree's own files stay usable.
    await expect(tool("read", { filePath: path.join(dir, "src", "a.ts") })).resolves.toBeUndefined();
    await expect(tool("write", { filePath: path.join(dir, "src", "new", "b.ts"), content: "b" })).resolves.toBeUndefined();
    expect(fs.readdirSync(plugins)).toEqual([]);
  });

  it("a link in a parent folder counts as well: a folder link leading out is refused for a file below it", async () => {
    const { env, dir, tool, dev } = await setup();
    const outside = path.join(dev.root, "elsewhere");
    fs.mkdirSync(outside);
    const made = await runCheck(`mkdir -p a && ln -s '${outside}' a/b`, { cwd: dir, sandbox: "auto", env, timeoutMs: 60_000 });
    expect(made.passed, made.output).toBe(true);
    await expect(tool("write", { filePath: path.join(dir, "a", "b", "c", "d.txt"), content: "x" })).rejects.toThrow(/leads outside/);
  });

  it("a tool's result shown to the model is redacted: OpenCode's provider key and the environment's tokens", async () => {
    const { guard } = await setup();
    const output = { output: `config: ${PROVIDER_KEY}\nGITHUB_TOKEN=ghp_shownInAFile0123456789abcdefABCDEF` };
    await guard.afterTool({ tool: "read", sessionID: "ses_exec" }, output);
    expect(output.output).not.toContain(PROVIDER_KEY);
    expect(output.output).toContain("[REDACTED]");
    // A session otto does not guard is left as it is.
    const other = { output: `config: ${PROVIDER_KEY}` };
    await guard.afterTool({ tool: "read", sessionID: "ses_user" }, other);
    expect(other.output).toContain(PROVIDER_KEY);
  });
});

describe.skipIf(!sandboxed)("patches and reading tools (real bubblewrap)", () => {
  it("apply_patch headers without a space, with a/ b/ prefixes or through a link the shell made are judged like any path", async () => {
    const { env, plugins, dir, tool } = await setup();
    const made = await runCheck(`ln -s '${path.dirname(plugins)}' a`, { cwd: dir, sandbox: "auto", env, timeoutMs: 60_000 });
    expect(made.passed, made.output).toBe(true);
    const patch = (header: string) => tool("apply_patch", { patchText: `*** Begin Patch\n${header}\n+x\n*** End Patch` });
    await expect(patch("*** Add File:.git/hooks/pre-commit")).rejects.toThrow(/git's directory/);
    await expect(patch("*** Update File:.git/config")).rejects.toThrow(/git's directory/);
    await expect(patch("*** Add File:.opencode/plugin/evil.ts")).rejects.toThrow(/OpenCode configuration/);
    await expect(patch("*** Add File: b/../.opencode/plugin/x.ts")).rejects.toThrow(/OpenCode configuration/);
    await expect(patch("*** Add File: a/plugin/evil.ts")).rejects.toThrow(/leads outside|OpenCode's or otto's configuration/);
    await expect(patch("*** Add File: src/fine.ts")).resolves.toBeUndefined();
  });

  it("reading tools do not open git's directory or a secret file the sandbox hides", async () => {
    const { dir, tool } = await setup();
    fs.mkdirSync(path.join(dir, "keys"));
    fs.writeFileSync(path.join(dir, "keys", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n");
    await expect(tool("read", { filePath: path.join(dir, ".git", "config") })).rejects.toThrow(/git's directory/);
    await expect(tool("grep", { pattern: "token", path: path.join(dir, ".git") })).rejects.toThrow(/git's directory/);
    await expect(tool("read", { filePath: path.join(dir, "keys", "id_ed25519"), offset: 2 })).rejects.toThrow(/secret file/);
    await expect(tool("read", { filePath: path.join(dir, "README.md") })).resolves.toBeUndefined();
  });
});
