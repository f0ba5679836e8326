import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { SessionGuard } from "../../../src/guard/session-guard.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { developerHome } from "../../support/dev-home.ts";

/*
 * A guarded session's sandboxed shell line is looked at again after it runs (tool.execute.after)
 * and when the session ends or goes idle (a call whose after-hook never came): OpenCode
 * configuration it created is moved out of the tree before the next OpenCode start loads it,
 * whether or not the run ends in a commit. The line runs as OpenCode runs it: `sh -c <rewritten line>`.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function setup(): { guard: SessionGuard; repo: string; quarantine: string; env: Record<string, string> } {
  const dev = developerHome();
  cleanups.push(() => dev.cleanup());
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", ...dev.env };
  const repo = path.join(dev.home, "project");
  fs.mkdirSync(repo);
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["commit", "-q", "--allow-empty", "-m", "init"],
  ]) {
    const r = spawnSync("git", args, { cwd: repo, env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
  }
  const guard = new SessionGuard({ directory: repo, env, log: silentLogger });
  guard.noteAgent("ses_1", "otto-executor");
  return { guard, repo, quarantine: path.join(dev.home, ".local", "share", "otto", "quarantine"), env };
}

const PLANT = "mkdir -p .opencode/plugins && echo 'export default {}' > .opencode/plugins/x.js && echo planted";

function runLine(line: string, cwd: string, env: Record<string, string>): string {
  const r = spawnSync("/bin/sh", ["-c", line], { cwd, env, encoding: "utf8" });
  return `${r.stdout}${r.stderr}`;
}

describe.skipIf(!sandboxed)("a guarded session's sandboxed commands, looked at again (real bubblewrap)", () => {
  it("after the call: a .opencode plugin the line created is quarantined and the session is told", async () => {
    const { guard, repo, quarantine, env } = setup();
    const args = { command: PLANT };
    await guard.beforeTool({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, { args });
    expect(args.command).not.toBe(PLANT);
    const out = { output: runLine(args.command, repo, env) };
    // Positive control: the plant ran, in the sandbox, in the real tree.
    expect(out.output).toContain("planted");
    expect(fs.existsSync(path.join(repo, ".opencode", "plugins", "x.js"))).toBe(true);
    await guard.afterTool({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, out);
    expect(fs.existsSync(path.join(repo, ".opencode"))).toBe(false);
    expect(out.output).toMatch(/otto moved \.opencode out of the tree into .*quarantine/);
    expect(
      fs
        .readdirSync(quarantine, { recursive: true })
        .map(String)
        .some((p) => p.endsWith("x.js")),
    ).toBe(true);
  });

  it("at the session's end: a call whose after-hook never came is settled too", async () => {
    const { guard, repo, quarantine, env } = setup();
    const args = { command: PLANT };
    await guard.beforeTool({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, { args });
    expect(runLine(args.command, repo, env)).toContain("planted");
    expect(fs.existsSync(path.join(repo, ".opencode"))).toBe(true);
    await guard.sessionEnded("ses_1");
    expect(fs.existsSync(path.join(repo, ".opencode"))).toBe(false);
    expect(
      fs
        .readdirSync(quarantine, { recursive: true })
        .map(String)
        .some((p) => p.endsWith("x.js")),
    ).toBe(true);
  });
});
