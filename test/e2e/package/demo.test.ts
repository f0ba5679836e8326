import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT, runGit, type ProcessHandle } from "../../support/index.ts";
import { spawnTracked, stopTracked } from "../../support/processes.ts";

/**
 * `npm run demo` as a user runs it from a clone (after `npm ci`), with the scripted model: the
 * issue's done-when. Its scratch workspaces go to a TMPDIR of the test's own; OTTO_E2E_KEEP=1 keeps
 * the scratch repo so the commits can be checked, and the test removes it afterwards.
 */
describe("npm run demo", () => {
  let tmp: string | undefined;
  let handle: ProcessHandle | undefined;
  afterEach(async () => {
    if (handle) await stopTracked(handle);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    handle = undefined;
    tmp = undefined;
  });

  // Nine headless OpenCode runs, one of them a two-phase execute: minutes, not seconds.
  it("runs every step with the scripted model and ends with committed code in the scratch repo", { timeout: 900_000 }, async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "otto-demo-test-"));
    fs.mkdirSync(path.join(tmp, "home"));
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: path.join(tmp, "home"),
      TMPDIR: tmp,
      OTTO_E2E_KEEP: "1",
      npm_config_update_notifier: "false",
    };
    const started = spawnTracked("npm", ["run", "--silent", "demo"], { cwd: REPO_ROOT, env, buffer: true });
    handle = started.handle;
    const result = await started.subprocess;
    const stdout = String(result.stdout);
    expect(result.exitCode, `${stdout}\n${String(result.stderr)}`).toBe(0);
    expect(stdout.trim().split("\n").at(-1)).toBe("Demo finished.");
    expect(stdout).toContain("Model check: 2/2 ok");
    expect(stdout).toContain("Created spec add-rate-limiting-api");
    expect(stdout).toContain("--- .otto/specs/add-rate-limiting-api/tasks.md ---");
    // Every step's model calls are answered by that step's script: nothing fails or warns.
    expect(stdout).toContain("docs review (secondary): approve");
    expect(stdout).not.toContain("no scripted answer");

    const project = /^Scratch repo: (.+)$/m.exec(stdout)?.[1] ?? "";
    expect(project.startsWith(tmp), stdout).toBe(true);
    const log = await runGit(["log", "--format=%s"], project);
    const subjects = log.stdout.trim().split("\n");
    expect(subjects.at(-1)).toBe("Initial commit");
    expect(subjects.filter((s) => s.startsWith("otto(add-rate-limiting-api)")).length, log.stdout).toBeGreaterThanOrEqual(2);
    const tree = await runGit(["ls-tree", "-r", "--name-only", "HEAD"], project);
    expect(tree.stdout.split("\n")).toEqual(expect.arrayContaining(["src/task-001.js", "src/task-002.js", "src/task-003.js"]));
    expect((await runGit(["status", "--porcelain"], project)).stdout.trim()).toBe("");
  });
});
