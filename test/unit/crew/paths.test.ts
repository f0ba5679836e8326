import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { excludeCrewFromGit, findCrewRoot } from "../../../src/crew/index.ts";
import { createRepo, git, gitEnv, type Repo } from "../../support/index.ts";

let repo: Repo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

describe("where a crew lives", () => {
  it("is the main clone's root, from the clone, a subfolder or a worktree", async () => {
    repo = await createRepo({ remote: false });
    const env = gitEnv();
    const real = fs.realpathSync(repo.dir);
    const worktree = `${repo.dir}-wt`;
    await git(["worktree", "add", "-q", worktree, "-b", "side"], repo.dir);
    fs.mkdirSync(path.join(repo.dir, "src"));
    expect(await findCrewRoot(repo.dir, env)).toBe(real);
    expect(await findCrewRoot(path.join(repo.dir, "src"), env)).toBe(real);
    expect(await findCrewRoot(worktree, env)).toBe(real);
    fs.rmSync(worktree, { recursive: true, force: true });
  });

  it("is the directory itself outside git", async () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "otto-crew-nogit-"));
    expect(await findCrewRoot(dir, gitEnv({ GIT_CEILING_DIRECTORIES: path.dirname(dir) }))).toBe(dir);
    await excludeCrewFromGit(dir, gitEnv({ GIT_CEILING_DIRECTORIES: path.dirname(dir) }));
    expect(fs.readdirSync(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });

  it("is excluded from git once, through .git/info/exclude, keeping what is there", async () => {
    repo = await createRepo({ remote: false });
    const exclude = path.join(repo.dir, ".git", "info", "exclude");
    fs.writeFileSync(exclude, "*.log");
    await excludeCrewFromGit(repo.dir, gitEnv());
    await excludeCrewFromGit(repo.dir, gitEnv());
    expect(fs.readFileSync(exclude, "utf8")).toBe("*.log\n# otto crew state (local)\n/.otto/crew/\n");
    fs.mkdirSync(path.join(repo.dir, ".otto", "crew"), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, ".otto", "crew", "crew.json"), "{}");
    expect(await git(["status", "--porcelain"], repo.dir)).toBe("");
  });
});
