import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { runCheck, runGit } from "../../../src/workspace/index.ts";
import { gitBinary } from "../../../src/workspace/git-binary.ts";
import { developerHome } from "../../support/dev-home.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * Programs planted in the tree that would run later outside the sandbox: a `git` in an activated
 * `.venv/bin` on PATH (otto's own git outside, OpenCode's git), a hook in an in-tree
 * core.hooksPath (`.husky/_`, run by the user's own commit). Inside, those folders are read-only;
 * outside, otto runs git by absolute path from a PATH without the tree's entries.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
let repo: Repo | undefined;
let cleanups: Array<() => void> = [];
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  for (const c of cleanups) c();
  cleanups = [];
});

describe.skipIf(!sandboxed)("in-tree folders whose programs run later outside (real bubblewrap)", () => {
  it("a PATH entry in the tree and an in-tree core.hooksPath are read-only inside; the rest of the tree is writable", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    repo = await createRepo({ dir: path.join(dev.root, "project"), remote: false });
    const venv = path.join(repo.dir, ".venv", "bin");
    fs.mkdirSync(venv, { recursive: true });
    fs.mkdirSync(path.join(repo.dir, ".husky", "_"), { recursive: true });
    await repo.git(["config", "core.hooksPath", ".husky/_"]);
    const env: Record<string, string> = { ...gitEnv(), ...dev.env, PATH: `${venv}:${process.env.PATH ?? ""}` };
    const plant = [
      `printf '#!/bin/sh\\necho planted-git\\n' > .venv/bin/git; echo "venv=$?" >> tried.txt`,
      `printf '#!/bin/sh\\necho planted-hook\\n' > .husky/_/pre-commit; echo "hook=$?" >> tried.txt`,
      "true",
    ].join("; ");
    const result = await runCheck(plant, { cwd: repo.dir, sandbox: "auto", env, timeoutMs: 60_000 });
    expect(result.passed, result.output).toBe(true);
    // Positive control: both writes were tried, and the tree itself took a file.
    const tried = fs.readFileSync(path.join(repo.dir, "tried.txt"), "utf8");
    expect(tried).toMatch(/venv=[1-9]/);
    expect(tried).toMatch(/hook=[1-9]/);
    expect(fs.existsSync(path.join(venv, "git"))).toBe(false);
    expect(fs.existsSync(path.join(repo.dir, ".husky", "_", "pre-commit"))).toBe(false);
  });

  it("husky 9's hook bodies beside `.husky/_` and a hook manager's configuration are read-only inside; the user's next commit runs none of the session's", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    repo = await createRepo({ dir: path.join(dev.root, "project"), remote: false });
    const marker = path.join(dev.root, "hook-body-ran");
    fs.mkdirSync(path.join(repo.dir, ".husky", "_"), { recursive: true });
    // What husky 9 writes: `.husky/_/<hook>` only runs `.husky/<hook>`, when there is one.
    fs.writeFileSync(
      path.join(repo.dir, ".husky", "_", "post-commit"),
      "#!/bin/sh\n[ -f .husky/post-commit ] && sh .husky/post-commit\nexit 0\n",
      {
        mode: 0o755,
      },
    );
    fs.writeFileSync(path.join(repo.dir, "lefthook.yml"), "pre-commit: {}\n");
    await repo.git(["config", "core.hooksPath", ".husky/_"]);
    const env: Record<string, string> = { ...gitEnv(), ...dev.env };
    const plant = [
      `printf 'touch ${marker}\\n' > .husky/post-commit; echo "body=$?"`,
      `echo 'pre-commit: {commands: {x: {run: touch ${marker}}}}' > lefthook.yml; echo "lefthook=$?"`,
      'echo work > work.txt; echo "tree=$?"',
    ].join("; ");
    const result = await runCheck(plant, { cwd: repo.dir, sandbox: "auto", env, timeoutMs: 60_000 });
    // Positive control: every write was tried, and the tree itself took a file.
    expect(result.output).toMatch(/body=[1-9]/);
    expect(result.output).toMatch(/lefthook=[1-9]/);
    expect(result.output).toMatch(/tree=0/);
    expect(fs.existsSync(path.join(repo.dir, ".husky", "post-commit"))).toBe(false);
    expect(fs.readFileSync(path.join(repo.dir, "lefthook.yml"), "utf8")).toBe("pre-commit: {}\n");
    await repo.git(["add", "work.txt"]);
    await repo.git(["commit", "-qm", "the user's own commit"]);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("otto's git outside is looked up on PATH without the tree's entries and run by absolute path", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    repo = await createRepo({ dir: path.join(dev.root, "project"), remote: false });
    const venv = path.join(repo.dir, ".venv", "bin");
    const marker = path.join(dev.root, "planted-git-ran");
    fs.mkdirSync(venv, { recursive: true });
    fs.writeFileSync(path.join(venv, "git"), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    const env: Record<string, string> = { ...gitEnv(), ...dev.env, PATH: `${venv}:${process.env.PATH ?? ""}` };
    // Positive control: a plain lookup on that PATH finds the planted one.
    expect(gitBinary(env, undefined)).toBe(path.join(venv, "git"));
    expect(gitBinary(env, repo.dir)).not.toBe(path.join(venv, "git"));
    const result = await runGit(["worktree", "list"], { cwd: repo.dir, env });
    expect(result.exitCode).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
