import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { commitAll, runCheck, runGit, snapshotTree } from "../../../src/workspace/index.ts";
import { developerHome } from "../../support/dev-home.ts";
import { createRepo, gitEnv } from "../../support/git.ts";

for (const variant of ["useConfigOnly", "EMAIL"]) {
  it(variant, async () => {
    const dev = developerHome();
    const text = fs.readFileSync(path.join(dev.home, ".gitconfig"), "utf8");
    const stripped = text.replace(/\tname = .*\n/, variant === "EMAIL" ? "\tname = Dana Developer\n" : "").replace(/\temail = .*\n/, "");
    fs.writeFileSync(
      path.join(dev.home, ".gitconfig"),
      variant === "useConfigOnly" ? stripped.replace("[user]\n", "[user]\n\tuseConfigOnly = true\n") : stripped,
    );
    const env: Record<string, string> = { ...gitEnv(), ...dev.env, ...(variant === "EMAIL" ? { EMAIL: "dana@from-env.invalid" } : {}) };
    delete env.GIT_CONFIG_GLOBAL;
    const repo = await createRepo({ dir: path.join(dev.root, "work", "project"), remote: false });
    await repo.git(["config", "--unset", "user.name"]);
    await repo.git(["config", "--unset", "user.email"]);
    await repo.git(["config", "--unset", "commit.gpgsign"]);
    const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
    console.log("outside var:", spawnSync("git", ["var", "GIT_AUTHOR_IDENT"], { cwd: repo.dir, env, encoding: "utf8" }));
    const baseline = await snapshotTree(git, repo.dir);
    const r = await runCheck("echo w > work.txt; git var GIT_AUTHOR_IDENT > ident.txt 2>&1; true", {
      cwd: repo.dir,
      sandbox: "auto",
      env,
      timeoutMs: 60_000,
    });
    console.log(r.passed, fs.readFileSync(path.join(repo.dir, "ident.txt"), "utf8"));
    fs.rmSync(path.join(repo.dir, "ident.txt"));
    const res = await commitAll(git, repo.dir, "feat: x", { baseline }).catch((e: unknown) => e);
    console.log(res);
    console.log(await repo.git(["log", "-1", "--format=%an <%ae>"]));
    dev.cleanup();
    repo.cleanup();
    expect(1).toBe(1);
  });
}
