import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hardenHostGit } from "../../../src/host/host-git.ts";

describe("hardenHostGit: the git OpenCode starts runs no fsmonitor program", () => {
  it("adds its entries after the ones already there, once", () => {
    const env: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "me" };
    hardenHostGit(env);
    hardenHostGit(env);
    expect(env).toEqual({
      GIT_CONFIG_COUNT: "3",
      GIT_CONFIG_KEY_0: "user.name",
      GIT_CONFIG_VALUE_0: "me",
      GIT_CONFIG_KEY_1: "core.fsmonitor",
      GIT_CONFIG_VALUE_1: "false",
      GIT_CONFIG_KEY_2: "protocol.ext.allow",
      GIT_CONFIG_VALUE_2: "never",
    });
  });

  it("a nested repository's core.fsmonitor does not run under git with that environment (it does without)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-host-git-"));
    try {
      const marker = path.join(dir, "ran");
      // Without the entries a plugin loaded by an earlier test file of this worker may have added to process.env.
      const plain = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_CONFIG_")));
      const git = (args: string[], cwd: string, env: NodeJS.ProcessEnv = plain) =>
        execFileSync("git", args, {
          cwd,
          env: {
            ...env,
            GIT_AUTHOR_NAME: "t",
            GIT_AUTHOR_EMAIL: "t@example.invalid",
            GIT_COMMITTER_NAME: "t",
            GIT_COMMITTER_EMAIL: "t@example.invalid",
          },
          stdio: "pipe",
        });
      git(["init", "-q", "outer"], dir);
      const outer = path.join(dir, "outer");
      git(["init", "-q", "vendor"], outer);
      const vendor = path.join(outer, "vendor");
      git(["commit", "-q", "--allow-empty", "-m", "init"], vendor);
      git(["config", "core.fsmonitor", `echo ran >> '${marker}'; false`], vendor);
      git(["add", "vendor"], outer);
      // A snapshot-like pair of commands: what OpenCode's snapshot runs over a work tree.
      const env: NodeJS.ProcessEnv = { ...plain };
      hardenHostGit(env);
      git(["status", "--porcelain", "--ignore-submodules=none"], outer, env);
      git(["diff", "--name-only"], outer, env);
      expect(fs.existsSync(marker)).toBe(false);
      // Positive control: the planted program is live for git without it.
      git(["status", "--porcelain", "--ignore-submodules=none"], outer, plain);
      expect(fs.readFileSync(marker, "utf8")).toMatch(/ran/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
