import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { placeRun, runBranchName } from "../../../src/repo/index.ts";
import { defaultBranch } from "../../../src/workspace/index.ts";
import { clone, GIT, tempDir, trackedRepo } from "./fixtures.ts";
import { createRepo } from "../../support/git.ts";

describe("defaultBranch", () => {
  it("reads the remote's HEAD, and without a remote falls back to main or master", async () => {
    const repo = await clone();
    expect(await defaultBranch(repo.dir, GIT)).toBe("main");
    const local = await createRepo({ dir: path.join(tempDir(), "solo"), remote: false });
    await local.git(["branch", "-m", "main", "master"]);
    expect(await defaultBranch(local.dir, GIT)).toBe("master");
  });
});

describe("placeRun: where a run commits", () => {
  it("on the default branch of a repo otto does not track: makes otto/<slug> at HEAD and keeps the user's uncommitted edit", async () => {
    const repo = await clone();
    fs.writeFileSync(path.join(repo.dir, "README.md"), "mine\n");
    const placed = await placeRun({ root: repo.dir, slug: "add-auth", here: false, repos: [], git: GIT });
    expect(placed).toMatchObject({ branch: "otto/add-auth", switched: true });
    expect(placed.note).toContain("Created the branch otto/add-auth from main (the default branch)");
    expect(await repo.git(["branch", "--show-current"])).toBe("otto/add-auth");
    expect(await repo.git(["rev-parse", "otto/add-auth"])).toBe(await repo.git(["rev-parse", "main"]));
    expect(fs.readFileSync(path.join(repo.dir, "README.md"), "utf8")).toBe("mine\n");
    // A resumed run switches back to the branch it made.
    await repo.git(["switch", "-q", "main"]);
    expect((await placeRun({ root: repo.dir, slug: "add-auth", here: false, repos: [], git: GIT })).note).toContain(
      "Switched to the branch otto/add-auth",
    );
  });

  it("a tracked repo names the branch by its branch_template; hands-off, --here and any other branch stay where they are", async () => {
    const repo = await clone();
    const tracked = trackedRepo(repo, { git_strategy: "branch" });
    expect(runBranchName("add-auth", tracked)).toBe("users/me/add-auth");
    expect(await placeRun({ root: repo.dir, slug: "add-auth", here: false, repos: [tracked], git: GIT })).toMatchObject({
      branch: "users/me/add-auth",
      switched: true,
    });

    await repo.git(["switch", "-q", "main"]);
    expect(
      await placeRun({ root: repo.dir, slug: "x", here: false, repos: [trackedRepo(repo, { git_strategy: "hands-off" })], git: GIT }),
    ).toMatchObject({ branch: "main", switched: false });
    expect(await placeRun({ root: repo.dir, slug: "x", here: true, repos: [], git: GIT })).toEqual({ branch: "main", switched: false });
    await repo.git(["switch", "-q", "-c", "feature/mine"]);
    expect(await placeRun({ root: repo.dir, slug: "x", here: false, repos: [], git: GIT })).toEqual({
      branch: "feature/mine",
      switched: false,
    });
  });

  it("refuses with the way out when git cannot switch without overwriting the user's change", async () => {
    const repo = await clone();
    await repo.git(["switch", "-q", "-c", "otto/x"]);
    await repo.commit("branch change", { "README.md": "branch\n" });
    await repo.git(["switch", "-q", "main"]);
    fs.writeFileSync(path.join(repo.dir, "README.md"), "mine\n");
    await expect(placeRun({ root: repo.dir, slug: "x", here: false, repos: [], git: GIT })).rejects.toThrow(
      /commits on otto\/x, not on main .*git could not switch/,
    );
    expect(fs.readFileSync(path.join(repo.dir, "README.md"), "utf8")).toBe("mine\n");
  });
});
