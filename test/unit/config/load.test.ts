import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findRepoRoot, loadConfig, locateConfigFiles, validateConfig } from "../../../src/config/index.ts";
import type { OttoError } from "../../../src/core/index.ts";
import { sandbox } from "./temp.ts";

describe("locateConfigFiles", () => {
  it("uses XDG_CONFIG_HOME and the git top-level of a nested directory", async () => {
    const box = await sandbox();
    const nested = path.join(box.repo, "src", "deep");
    await fs.mkdir(nested, { recursive: true });
    expect(await locateConfigFiles({ directory: nested, env: box.env })).toEqual({
      user: box.userFile,
      repo: box.repoFile,
      repoRoot: box.repo,
    });
  });

  it("defaults the user file to ~/.config/otto/otto.jsonc", async () => {
    const box = await sandbox();
    const files = await locateConfigFiles({ directory: box.repo, env: { HOME: box.home } });
    expect(files.user).toBe(path.join(box.home, ".config", "otto", "otto.jsonc"));
  });

  it("treats a .git file (a worktree) as the top-level", async () => {
    const box = await sandbox();
    const worktree = path.join(box.root, "wt");
    await box.write(path.join(worktree, ".git"), "gitdir: ../repo/.git/worktrees/wt\n");
    expect(await findRepoRoot(path.join(worktree))).toBe(worktree);
  });

  it("outside a repository, uses <directory>/.otto/otto.jsonc only when it exists", async () => {
    const box = await sandbox();
    const plain = path.join(box.root, "plain");
    await fs.mkdir(plain);
    expect((await locateConfigFiles({ directory: plain, env: box.env })).repo).toBeUndefined();
    await box.write(path.join(plain, ".otto", "otto.jsonc"), "{}");
    expect((await locateConfigFiles({ directory: plain, env: box.env })).repo).toBe(path.join(plain, ".otto", "otto.jsonc"));
  });
});

describe("loadConfig", () => {
  it("treats missing files as empty", async () => {
    const box = await sandbox();
    const loaded = await loadConfig({ directory: box.repo, env: box.env });
    expect(loaded.files).toEqual({ user: box.userFile, repo: box.repoFile });
    expect(loaded.found).toEqual({ user: false, repo: false });
    expect(loaded.config.spec.max_parallel_tasks).toBe(4);
    expect(loaded.secrets).toEqual([]);
  });

  it("merges user then repo then env, with sources naming the files", async () => {
    const box = await sandbox();
    await box.write(
      box.userFile,
      `{ "models": { "primary": "u/p", "secondary": "u/s" }, "pr": { "providers": { "github": { "token": "from-file" } } } }`,
    );
    await box.write(box.repoFile, `// repo overrides\n{ "models": { "primary": "r/p" } }`);
    const loaded = await loadConfig({ directory: box.repo, env: { ...box.env, GITHUB_TOKEN: "from-env" } });
    expect(loaded.config.models).toEqual({ primary: "r/p", secondary: "u/s" });
    expect(loaded.config.pr.providers.github.token).toBe("from-env");
    expect(loaded.sources["models.primary"]).toBe(`repo (${box.repoFile})`);
    expect(loaded.sources["models.secondary"]).toBe(`user (${box.userFile})`);
    expect(loaded.sources["pr.providers.github.token"]).toBe("env (GITHUB_TOKEN)");
    expect(loaded.secrets.sort()).toEqual(["from-env", "from-file"]);
  });

  it("throws config_invalid listing the problems of both files", async () => {
    const box = await sandbox();
    await box.write(box.userFile, `{\n  "spec": { "max_parallel_tasks": "four" }\n}`);
    await box.write(box.repoFile, `{\n  "sever": {}\n}`);
    const error = await loadConfig({ directory: box.repo, env: box.env }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "config_invalid" });
    expect((error as OttoError).fix).toContain("/otto-config validate");
    const message = (error as Error).message;
    expect(message).toContain("2 problems");
    expect(message).toContain(`${box.userFile}:2:35 spec.max_parallel_tasks: expected a number, found "four" (string)`);
    expect(message).toContain(`${box.repoFile}:2:3 sever:`);
    expect(message).toContain(`Did you mean "server"?`);
  });
});

describe("validateConfig", () => {
  it("returns problems without throwing", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, `{ "spec": { "verify": "npm test" } }`);
    const report = await validateConfig({ directory: box.repo, env: box.env });
    expect(report.found).toEqual({ user: false, repo: true });
    expect(report.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.key}`)).toEqual([`${box.repoFile}:1:23 spec.verify`]);
  });

  it("reports an unreadable file as a problem", async () => {
    const box = await sandbox();
    await fs.mkdir(box.userFile, { recursive: true });
    const report = await validateConfig({ directory: box.repo, env: box.env });
    expect(report.problems).toMatchObject([{ file: box.userFile, expected: "a readable file", found: "EISDIR" }]);
  });
});
