import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "@opencode-ai/plugin";
import { describe, expect, it } from "vitest";
import { EventBus, silentLogger, type Env } from "../../../src/core/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { parseConfigText } from "../../../src/config/index.ts";
import { repoCommand } from "../../../src/tools/repo.ts";
import { worktreeCommand } from "../../../src/tools/worktree.ts";
import { gitEnv } from "../../support/git.ts";
import { clone, tempDir } from "./fixtures.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";

const TASKS = `# Tasks

## Task 1: First
- **id**: task-001
- **status**: completed
- **parallel_group**: 1
- **depends_on**: []
- **description**: done
- **files**: []

## Task 2: Second
- **id**: task-002
- **status**: pending
- **parallel_group**: 1
- **depends_on**: []
- **description**: to do
- **files**: []
`;

interface Box {
  env: Env;
  userFile: string;
  dataDir: string;
  run(command: "repo" | "worktree", args: string, cwd: string): Promise<string>;
}

function box(): Box {
  const home = tempDir("otto-home-");
  const env: Env = {
    ...gitEnv(),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
  };
  return {
    env,
    userFile: path.join(home, ".config", "otto", "otto.jsonc"),
    dataDir: path.join(home, ".local", "share", "otto"),
    async run(command, args, cwd) {
      const runtime: Runtime = {
        client: {} as Runtime["client"],
        directory: cwd,
        worktree: cwd,
        events: new EventBus(),
        log: silentLogger,
        env,
        once: new Set(),
        secrets: new KnownSecrets(),
        sessions: {} as Runtime["sessions"],
        guard: {} as Runtime["guard"],
        meter: {} as Runtime["meter"],
      };
      const toolCtx = {
        sessionID: "s",
        messageID: "m",
        agent: "otto",
        directory: cwd,
        worktree: cwd,
        abort: new AbortController().signal,
        metadata: () => undefined,
        ask: () => Promise.resolve(),
      } satisfies ToolContext;
      const tool = command === "repo" ? repoCommand(runtime) : worktreeCommand(runtime);
      const result = await tool.execute({ args }, toolCtx);
      return typeof result === "string" ? result : result.output;
    },
  };
}

const reposIn = (file: string) => parseConfigText(fs.readFileSync(file, "utf8"), { file }).value?.repos;

describe("/otto-repo", () => {
  it("add with no flags inside a clone proposes derived values and writes nothing; --yes writes them", async () => {
    const b = box();
    const app = await clone();
    await app.git(["remote", "set-url", "origin", "git@github.com:org/my-service.git"]);
    fs.mkdirSync(path.join(app.dir, "src"));
    const proposal = await b.run("repo", "add", path.join(app.dir, "src"));
    expect(proposal).toContain("Proposed repo (nothing was written):");
    expect(proposal).toContain("  name:            my-service");
    expect(proposal).toContain(`  primary_dir:     ${app.dir}`);
    expect(proposal).toContain(`  worktree_dir:    ${app.dir}-wt`);
    expect(proposal).toContain("  git_strategy:    worktree");
    expect(proposal).toContain("  remote:          git@github.com:org/my-service.git");
    expect(proposal).toContain("/otto-repo add --yes");
    expect(fs.existsSync(b.userFile)).toBe(false);

    const added = await b.run("repo", "add --yes", app.dir);
    expect(added).toContain(`Added repo 'my-service' as repos[0] of the user config ${b.userFile} (created the file):`);
    expect(reposIn(b.userFile)).toEqual([
      { name: "my-service", primary_dir: app.dir, worktree_dir: `${app.dir}-wt`, git_strategy: "worktree" },
    ]);

    const list = await b.run("repo", "list", app.dir);
    expect(list).toContain(`Tracked repos (1), from the user config ${b.userFile}:`);
    expect(list).toContain("my-service (worktree)");
    expect(list).toContain(`  primary dir:  ${app.dir}\n`);
    expect(list).toContain(`  worktree dir: ${app.dir}-wt (not created yet)`);
    expect(list).toContain("  remote:       git@github.com:org/my-service.git");
    expect(await b.run("repo", "add --yes", app.dir)).toContain("Error: A repo named 'my-service' is already in");
  });

  it("add with flags writes without --yes (headless), from anywhere; comments in the user file are kept", async () => {
    const b = box();
    const app = await clone();
    fs.mkdirSync(path.dirname(b.userFile), { recursive: true });
    fs.writeFileSync(b.userFile, '{\n  // keep me\n  "models": {}\n}\n');
    const out = await b.run(
      "repo",
      `add --name web --primary-dir ${app.dir} --strategy branch --branch-template 'users/me/{{name}}' --branch-pattern 'hotfix/*'`,
      tempDir(),
    );
    expect(out).toContain(`Added repo 'web' as repos[0] of the user config ${b.userFile}:`);
    expect(out).toContain("  branch_template: users/me/{{name}} (e.g. users/me/fix-auth)");
    expect(fs.readFileSync(b.userFile, "utf8")).toContain("// keep me");
    expect(reposIn(b.userFile)).toEqual([
      { name: "web", primary_dir: app.dir, git_strategy: "branch", branch_template: "users/me/{{name}}", branch_patterns: ["hotfix/*"] },
    ]);
    const list = await b.run("repo", "list", tempDir());
    expect(list).toContain("web (branch)");
    expect(list).not.toContain("worktree dir");
    expect(list).toContain("  remote:       ");
  });

  it("--dry-run shows what flags would write; bad input is refused with what to do", async () => {
    const b = box();
    const app = await clone();
    expect(await b.run("repo", "add --strategy branch --dry-run", app.dir)).toContain("git_strategy:    branch");
    expect(fs.existsSync(b.userFile)).toBe(false);
    expect(await b.run("repo", "add --strategy sideways", app.dir)).toBe(
      "Error: Unknown --strategy 'sideways'.\nNext step: Use one of: worktree, branch, hands-off.",
    );
    expect(await b.run("repo", "add --branch-template 'x/{{nom}}'", app.dir)).toContain(
      "Error: branch_template 'x/{{nom}}' is not a valid template",
    );
    const outside = await b.run("repo", "add", tempDir());
    expect(outside).toContain("is not inside a git repository");
    expect(outside).toContain("pass --name <name> --primary-dir <path>");
    const missing = await b.run("repo", "add --name later --primary-dir ~/src/not-cloned", tempDir());
    expect(missing).toContain("Added repo 'later'");
    expect(missing).toContain(`primary_dir:     ${b.env.HOME ?? ""}/src/not-cloned`);
    expect(missing).toContain("is not a git clone (yet)");
    // list marks a directory that does not exist (the clone above was never made).
    const list = await b.run("repo", "list", tempDir());
    expect(list).toContain(`  primary dir:  ${b.env.HOME ?? ""}/src/not-cloned (missing)\n`);
    expect(list).toContain(`  worktree dir: ${b.env.HOME ?? ""}/src/not-cloned-wt (not created yet)`);
    expect(list).toContain("  remote:       (none)");
  });

  it("remove edits the config only; an unknown name is an error", async () => {
    const b = box();
    const app = await clone();
    await b.run("repo", "add --yes", app.dir);
    const removed = await b.run("repo", "remove app", tempDir());
    expect(removed).toContain(`Removed repo 'app' (repos[0]) from the user config ${b.userFile}.`);
    expect(removed).toContain(`Nothing on disk was touched: ${app.dir}`);
    expect(reposIn(b.userFile)).toEqual([]);
    expect(fs.existsSync(app.dir)).toBe(true);
    expect(await b.run("repo", "remove app", tempDir())).toContain("Error: No repo named 'app'");
    expect(await b.run("repo", "list", tempDir())).toBe("No repos are tracked. Add one: run /otto-repo add inside a clone.");
  });
});

describe("/otto-worktree", () => {
  it("add, list (state, specs, PRs) and remove, finding the repo from the current directory or --repo", async () => {
    const b = box();
    const app = await clone();
    await b.run("repo", "add --yes --branch-template 'users/me/{{name}}'", app.dir);

    const added = await b.run("worktree", "add rate", app.dir);
    const dir = path.join(`${app.dir}-wt`, "rate");
    expect(added).toContain(`Created worktree ${dir} on branch 'users/me/rate' (a new branch from main at`);
    expect(added).toContain(`Ran: git worktree add ${dir} -b users/me/rate`);

    fs.mkdirSync(path.join(dir, ".otto", "specs", "rate-limiting"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".otto", "specs", "rate-limiting", "tasks.md"), TASKS);
    fs.mkdirSync(path.join(b.dataDir, "prs"), { recursive: true });
    fs.writeFileSync(
      path.join(b.dataDir, "prs", "github-7.md"),
      "---\nbranch: users/me/rate\nrepo: app\nurl: https://github.com/org/app/pull/7\n---\n",
    );

    // From inside the worktree: the repo is found by its worktree dir.
    const list = await b.run("worktree", "list", dir);
    expect(list).toContain(`Repo 'app' (worktree strategy, worktrees under ${app.dir}-wt):`);
    expect(list).toContain(`| main | ${app.dir} (primary) | clean | origin/main ↑0 ↓0 | - |`);
    expect(list).toContain(
      `| users/me/rate | ${dir} | dirty (1 change) | no upstream | spec rate-limiting (1/2 tasks left); PR github-7 https://github.com/org/app/pull/7 |`,
    );

    const refused = await b.run("worktree", "remove rate --repo app", tempDir());
    expect(refused).toContain(`Error: ${dir} has uncommitted changes; nothing was removed:`);
    expect(refused).toContain("?? .otto/");
    expect(refused).toContain("Next step: Commit or stash them");
    const removed = await b.run("worktree", "remove rate --repo app --force --delete-branch", tempDir());
    expect(removed).toContain(`Removed worktree ${dir} of repo 'app'.`);
    expect(removed).toContain("Discarded 1 uncommitted change(s) (--force): ?? .otto/");
    expect(removed).toContain("Deleted branch 'users/me/rate'.");
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("names the tracked repos when none matches, and reports a hands-off refusal with its fix", async () => {
    const b = box();
    const app = await clone();
    await b.run("repo", "add --yes --strategy hands-off", app.dir);
    const unknown = await b.run("worktree", "add x", tempDir());
    expect(unknown).toContain("Error: No tracked repo matches the current directory");
    expect(unknown).toContain("Next step: Pass --repo <name> (tracked: app)");
    const handsOff = await b.run("worktree", "add x --repo app", tempDir());
    expect(handsOff).toContain("Error: Repo 'app' uses the hands-off strategy: otto does not create worktrees or branches.");
    expect(await b.run("worktree", "list", app.dir)).toContain("Hands-off: otto does not create or switch branches here");
  });
});
