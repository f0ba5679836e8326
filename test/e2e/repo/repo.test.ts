import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, slashCommand, useE2E, type Workspace } from "../../support/index.ts";
import { ottoCommand } from "../pr/forges.ts";

describe("/otto-repo and /otto-worktree inside real OpenCode", () => {
  const e2e = useE2E();

  /** One slash command through `opencode run`, the scripted model calling the command's tool. */
  async function command(ws: Workspace, name: "otto-repo", args: string[]): Promise<string> {
    e2e.model.script(...slashCommand(name.replace("-", "_")));
    const result = await e2e.run(ws, ["run", "--command", name, "--", ...args]);
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout;
  }

  it("/otto-repo add works headless with flags and keeps the user's comments; list shows it", async () => {
    const ws = await e2e.workspace({ remote: true, userOttoConfig: '{\n  // my settings\n  "models": {}\n}\n' });
    const userFile = path.join(ws.dirs.configHome, "otto", "otto.jsonc");

    const added = await command(ws, "otto-repo", ["add", "--yes", "--name", "app", "--branch-template", "users/me/{{name}}"]);
    expect(added).toContain(`Added repo 'app' as repos[0] of the user config ${userFile}:`);
    expect(added).toContain(`primary_dir:     ${ws.project}`);
    const config = fs.readFileSync(userFile, "utf8");
    expect(config).toContain("// my settings");
    expect(config).toContain('"branch_template": "users/me/{{name}}"');

    const listed = await command(ws, "otto-repo", ["list"]);
    expect(listed).toContain("app (worktree)");
    expect(listed).toContain(`worktree dir: ${ws.project}-wt (not created yet)`);
    expect(listed).toContain(`remote:       ${ws.repo.remote}`);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});

describe("/otto-worktree inside one served OpenCode", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("/otto-worktree add, list and remove by the repo's branch_template", async () => {
    const ws = await e2e.workspace({ remote: true });
    ws.writeOttoConfig({ repos: [{ name: "app", primary_dir: ws.project, branch_template: "users/me/{{name}}" }] }, "user");
    const dir = path.join(`${ws.project}-wt`, "fix-auth");
    // The served OpenCode for the three commands (the headless path is the test above).
    const { client } = await e2e.serve(ws);
    const worktree = async (args: string): Promise<string> => {
      e2e.model.script(...slashCommand("otto_worktree"));
      return ottoCommand(client, "otto-worktree", args);
    };

    const added = await worktree("add fix-auth");
    expect(added).toContain(`Created worktree ${dir} on branch 'users/me/fix-auth'`);
    expect(await git(["rev-parse", "--abbrev-ref", "HEAD"], dir)).toBe("users/me/fix-auth");

    const listed = await worktree("list");
    expect(listed).toContain(`| main | ${ws.project} (primary) | clean | origin/main ↑0 ↓0 | - |`);
    expect(listed).toContain(`| users/me/fix-auth | ${dir} | clean | no upstream | - |`);

    const removed = await worktree("remove fix-auth --delete-branch");
    expect(removed).toContain(`Removed worktree ${dir} of repo 'app'.`);
    expect(removed).toContain("Deleted branch 'users/me/fix-auth'.");
    expect(fs.existsSync(dir)).toBe(false);
    expect(await git(["branch", "--list", "users/me/fix-auth"], ws.project)).toBe("");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
