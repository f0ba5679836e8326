import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGit } from "../../../src/workspace/index.ts";
import { addTemporaryWorktree } from "../../../src/workspace/temp-worktree.ts";
import { treeFilterOverrides } from "../../../src/workspace/tree-filters.ts";
import { createRepo, gitEnv, removeAfterTest, type Repo } from "../../support/git.ts";

/*
 * otto's own git runs outside the sandbox: a clean or smudge filter a config file in the tree
 * defines (a project's `.gitconfig` that `.git/config` includes, which the tree's code can write)
 * never runs there, while the user's own filter (Git LFS in .git/config) still does.
 */

let repo: Repo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

function logging(dir: string, name: string): { script: string; marker: string } {
  const marker = path.join(dir, `${name}.ran`);
  const script = path.join(dir, `${name}.sh`);
  fs.writeFileSync(script, `#!/bin/sh\necho "$0" >> '${marker}'\ncat\n`, { mode: 0o755 });
  return { script, marker };
}

async function setup() {
  const out = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "otto-filters-"));
  removeAfterTest(out);
  const tree = logging(out, "tree");
  const mine = logging(out, "mine");
  repo = await createRepo({
    remote: false,
    files: { "a.txt": "a\n", "b.md": "b\n", ".gitattributes": "*.txt filter=x\n*.md filter=lfs-like\n" },
  });
  // The project's shipped settings, as a sandboxed command (or a PR) could have written them.
  fs.writeFileSync(
    path.join(repo.dir, ".gitconfig"),
    `[filter "x"]\n\tsmudge = ${tree.script}\n\tclean = ${tree.script}\n\trequired = true\n`,
  );
  await repo.git(["config", "include.path", "../.gitconfig"]);
  // The user's own filter, in the repository's own config.
  await repo.git(["config", "filter.lfs-like.smudge", mine.script]);
  return { out, tree, mine, env: gitEnv() };
}

describe("otto's own git and the filters a tree's config defines", () => {
  it("worktree add and status run none of the tree's filters; the user's own filter still runs", async () => {
    const { out, tree, mine, env } = await setup();
    // Positive control: plain git runs the tree's smudge filter on checkout.
    spawnSync("git", ["worktree", "add", "-q", "--detach", path.join(out, "plain"), "HEAD"], { cwd: repo!.dir, env });
    expect(fs.existsSync(tree.marker)).toBe(true);
    fs.rmSync(tree.marker);
    fs.rmSync(mine.marker);

    const scratch = await addTemporaryWorktree({
      repoDir: repo!.dir,
      remote: "",
      branch: "",
      env,
      label: "otto-t",
      at: "HEAD",
      tempRoot: out,
    });
    expect(fs.readFileSync(path.join(scratch.dir, "a.txt"), "utf8")).toBe("a\n");
    fs.appendFileSync(path.join(repo!.dir, "a.txt"), "more\n");
    expect((await runGit(["status", "--short"], { cwd: repo!.dir, env })).stdout).toContain("a.txt");
    expect(await scratch.release()).toBeUndefined();
    expect(fs.existsSync(tree.marker)).toBe(false);
    expect(fs.readFileSync(mine.marker, "utf8")).toContain("mine.sh");
  });

  it("every filter named in a config file in the tree or its git directory, its subsection as written; none for the git directory's own config", async () => {
    const { env } = await setup();
    const dir = repo!.dir;
    fs.appendFileSync(
      path.join(dir, ".gitconfig"),
      '[filter "My.Dotted name"]\n\tprocess = p\n[include]\n\tpath = .git/more.config\n[diff "d"]\n\ttextconv = t\n',
    );
    fs.writeFileSync(path.join(dir, ".git", "more.config"), "[filter.old]\n\tsmudge = s\n");
    const entries = treeFilterOverrides(dir, [path.join(dir, ".git")], env);
    expect(entries).toEqual(
      ["x", "My.Dotted name", "old"].flatMap((name) => [
        [`filter.${name}.clean`, ""],
        [`filter.${name}.smudge`, ""],
        [`filter.${name}.process`, ""],
        [`filter.${name}.required`, "false"],
      ]),
    );
    fs.writeFileSync(path.join(dir, ".gitconfig"), "[core]\n\tabbrev = 9\n");
    expect(treeFilterOverrides(dir, [path.join(dir, ".git")], env)).toEqual([]);
  });
});
