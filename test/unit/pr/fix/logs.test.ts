import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collectLogs } from "../../../../src/pr/fix/logs.ts";
import type { PrBackend } from "../../../../src/pr/index.ts";
import type { PrInfo } from "../../../../src/pr/index.ts";
import { OttoError } from "../../../../src/core/index.ts";
import { createRepo, gitEnv, type Repo } from "../../../support/git.ts";

const pr = {
  provider: "github",
  number: 1,
  repo: "o/r",
  url: "",
  title: "T",
  state: "open",
  draft: false,
  sourceBranch: "f",
  targetBranch: "main",
  headSha: "s",
  author: "a",
  createdAt: "",
  meta: {},
} satisfies PrInfo;

describe("collectLogs", () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  async function setup(): Promise<{ repo: Repo; storeDir: string }> {
    const repo = await createRepo({ remote: false });
    const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-prs-"));
    cleanup.push(
      () => void repo.cleanup(),
      () => fs.rmSync(storeDir, { recursive: true, force: true }),
    );
    return { repo, storeDir };
  }

  it("saves trimmed, redacted logs of failed checks in the data dir and a git-excluded copy in the worktree; reports the rest", async () => {
    const { repo, storeDir } = await setup();
    const asked: string[] = [];
    const backend = {
      getBuildLogs: async (_pr: PrInfo, logId: string) => {
        asked.push(logId);
        if (logId === "404") throw new OttoError("gh_not_found", "GitHub has no job 404 (token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)");
        return `${"noise\n".repeat(500)}Error: boom with s3cr3t-config-token\n`;
      },
    } as unknown as PrBackend;
    const checks = [
      { name: "build", state: "success" as const, logId: "1" },
      { name: "Unit Tests (node 20)", state: "failure" as const, logId: "2" },
      { name: "lint", state: "failure" as const, logId: "404" },
      { name: "external", state: "failure" as const, url: "https://ci.example.com/1" },
    ];
    const logs = await collectLogs({
      backend,
      pr,
      key: "github-o-r-1",
      checks,
      dir: repo.dir,
      storeDir,
      secrets: ["s3cr3t-config-token"],
      env: gitEnv(),
    });
    expect(asked).toEqual(["2", "404"]);
    expect(logs.files).toEqual([".otto/pr-logs/github-o-r-1/01-unit_tests_node_20_.log"]);
    const copy = fs.readFileSync(path.join(repo.dir, logs.files[0]!), "utf8");
    expect(copy).toContain("Error: boom with [REDACTED]");
    expect(copy).toMatch(/… \d+ lines skipped …/);
    expect(fs.readFileSync(path.join(storeDir, "github-o-r-1", "logs", "01-unit_tests_node_20_.log"), "utf8")).toBe(copy);
    expect(logs.missing).toEqual([
      expect.stringMatching(/^lint: .*GitHub has no job 404 \(token \[REDACTED\]\)/),
      "external: the provider offers no log for it (see https://ci.example.com/1)",
    ]);
    // Kept out of git (otto commits with add -A), and the exclude line is written once.
    expect(await repo.git(["status", "--porcelain"])).toBe("");
    await collectLogs({ backend, pr, key: "github-o-r-1", checks: [], dir: repo.dir, storeDir, secrets: [], env: gitEnv() });
    expect(fs.readFileSync(path.join(repo.dir, ".git", "info", "exclude"), "utf8").match(/\/\.otto\/pr-logs\//g)).toHaveLength(1);
    // A new run starts from empty folders.
    expect(fs.readdirSync(path.join(repo.dir, ".otto", "pr-logs", "github-o-r-1"))).toEqual([]);
  });

  it("refuses a PR checkout whose committed .otto is a symlink: nothing outside is removed or written", async () => {
    const { repo, storeDir } = await setup();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "otto-outside-"));
    cleanup.push(() => fs.rmSync(outside, { recursive: true, force: true }));
    fs.mkdirSync(path.join(outside, "pr-logs", "github-o-r-1"), { recursive: true });
    fs.writeFileSync(path.join(outside, "pr-logs", "github-o-r-1", "keep.txt"), "the user's file\n");
    fs.symlinkSync(outside, path.join(repo.dir, ".otto"));
    const backend = { getBuildLogs: async () => "Error: boom\n" } as unknown as PrBackend;
    const checks = [{ name: "unit", state: "failure" as const, logId: "2" }];
    await expect(
      collectLogs({ backend, pr, key: "github-o-r-1", checks, dir: repo.dir, storeDir, secrets: [], env: gitEnv() }),
    ).rejects.toMatchObject({ code: "otto_dir_symlink" });
    expect(fs.readdirSync(path.join(outside, "pr-logs", "github-o-r-1"))).toEqual(["keep.txt"]);
  });
});
