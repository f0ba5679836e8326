import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitAll, runGit, snapshotGitControl, snapshotTree } from "../../../src/workspace/index.ts";
import { isOpencodeCode } from "../../../src/workspace/quarantine.ts";
import { developerHome } from "../../support/dev-home.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * OpenCode configuration a session wrote would be loaded, outside any sandbox, by the next OpenCode
 * start in the checkout: otto never commits it, moves it out of the tree into its data folder, and
 * puts back what the last commit had.
 */

let repo: Repo | undefined;
let cleanups: Array<() => void> = [];
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  for (const c of cleanups) c();
  cleanups = [];
});

describe("quarantine of OpenCode configuration a session wrote", () => {
  it("names .opencode content and opencode.json(c) at any depth, nothing else", () => {
    expect(isOpencodeCode(".opencode/plugins/x.js")).toBe(true);
    expect(isOpencodeCode("pkg/.OpenCode/tools/t.ts")).toBe(true);
    expect(isOpencodeCode("opencode.json")).toBe(true);
    expect(isOpencodeCode("web/opencode.jsonc")).toBe(true);
    expect(isOpencodeCode("src/opencode.ts")).toBe(false);
    expect(isOpencodeCode("docs/opencode.json.md")).toBe(false);
  });

  it("a plugin, a changed opencode.json and a link to the user's plugin folder leave the tree uncommitted; the rest is committed", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    const env: Record<string, string> = {
      ...gitEnv({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }),
      ...dev.env,
    };
    repo = await createRepo({ dir: path.join(dev.root, "project"), files: { "opencode.json": '{ "plugin": [] }\n', "src/a.ts": "a\n" } });
    const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, repo.dir);
    const snapshot = await snapshotGitControl(repo.dir, { env });
    // The user's global plugin folder, which a link in the tree points at.
    const victim = path.join(dev.home, ".config", "opencode", "plugin");
    fs.mkdirSync(victim, { recursive: true });
    fs.writeFileSync(path.join(victim, "mine.js"), "// the user's\n");
    // What the sessions did:
    fs.mkdirSync(path.join(repo.dir, ".opencode", "plugins"), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, ".opencode", "plugins", "evil.js"), "export default async () => ({});\n");
    fs.writeFileSync(path.join(repo.dir, "opencode.json"), '{ "plugin": ["file:///evil"] }\n');
    fs.mkdirSync(path.join(repo.dir, "web"));
    fs.symlinkSync(victim, path.join(repo.dir, "web", ".opencode"));
    fs.writeFileSync(path.join(repo.dir, "src/a.ts"), "a2\n");

    const result = await commitAll(git, repo.dir, "feat: work", { baseline, guard: { snapshot, env } });
    const committed = (await repo.git(["show", "--name-only", "--format=", "HEAD"])).split("\n").sort();
    expect(committed).toEqual(["src/a.ts"]);
    expect(result.quarantined?.paths.sort()).toEqual([".opencode/plugins/evil.js", "opencode.json", "web/.opencode"]);
    const dir = result.quarantined?.dir ?? "";
    expect(dir.startsWith(path.join(dev.home, ".local", "share", "otto", "quarantine"))).toBe(true);
    // Out of the tree, kept where a person can look; the tracked file is back as the last commit had it.
    expect(fs.existsSync(path.join(repo.dir, ".opencode", "plugins", "evil.js"))).toBe(false);
    expect(fs.readFileSync(path.join(dir, ".opencode", "plugins", "evil.js"), "utf8")).toContain("export default");
    expect(fs.readFileSync(path.join(repo.dir, "opencode.json"), "utf8")).toBe('{ "plugin": [] }\n');
    expect(fs.readFileSync(path.join(dir, "opencode.json"), "utf8")).toContain("file:///evil");
    // The link was moved as a link: the user's folder is untouched.
    expect(fs.lstatSync(path.join(dir, "web", ".opencode")).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(victim)).toEqual(["mine.js"]);
    expect(await repo.git(["status", "--porcelain"])).toBe("");
  });
});

describe("quarantine: what git ignores", () => {
  it("a plugin hidden by a session's .opencode/.gitignore is moved out as well; the user's ignored .opencode from before stays", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    const env: Record<string, string> = {
      ...gitEnv({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }),
      ...dev.env,
    };
    repo = await createRepo({ dir: path.join(dev.root, "project"), files: { ".gitignore": "web/.opencode/\n", "src/a.ts": "a\n" } });
    // The user's own ignored configuration, there before the run.
    fs.mkdirSync(path.join(repo.dir, "web", ".opencode"), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, "web", ".opencode", "mine.ts"), "// the user's\n");
    const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, repo.dir);
    const snapshot = await snapshotGitControl(repo.dir, { env });
    fs.mkdirSync(path.join(repo.dir, ".opencode", "plugin"), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, ".opencode", ".gitignore"), "*\n");
    fs.writeFileSync(path.join(repo.dir, ".opencode", "plugin", "evil.ts"), "export default async () => ({});\n");
    fs.writeFileSync(path.join(repo.dir, "src/a.ts"), "a2\n");
    // Positive control: git reports nothing of it.
    expect(await repo.git(["status", "--porcelain", "--", ".opencode"])).toBe("");
    const result = await commitAll(git, repo.dir, "feat: work", { baseline, guard: { snapshot, env } });
    expect(result.quarantined?.paths).toEqual(expect.arrayContaining([".opencode/plugin"]));
    expect(fs.existsSync(path.join(repo.dir, ".opencode", "plugin", "evil.ts"))).toBe(false);
    expect(fs.existsSync(path.join(result.quarantined?.dir ?? "", ".opencode", "plugin", "evil.ts"))).toBe(true);
    expect((await repo.git(["show", "--name-only", "--format=", "HEAD"])).split("\n")).toEqual(["src/a.ts"]);
    expect(fs.readFileSync(path.join(repo.dir, "web", ".opencode", "mine.ts"), "utf8")).toBe("// the user's\n");
  });
});
