import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSandbox, findSecretFiles, forgetSecretFiles, planCommand, readIndexPaths } from "../../../src/sandbox/index.ts";

/*
 * Hidden stays hidden (real bubblewrap, real git): what a session does inside the sandbox in one
 * command (an index entry for `.env`, 20,001 files in a folder that sorts before it) does not show
 * the user's `.env` to its next command, nor to a later otto process that looks at the tree for the
 * first time. Each hostile step is checked to have run (the index names `.env`, the files exist),
 * and the secret is read outside first, so the probe can fail. The tree lives outside /tmp, which
 * the sandbox replaces.
 */

const run = promisify(execFile);
const available = detectSandbox().kind !== "none";
const SECRET = "DB_PASSWORD=user-secret-0123456789";

describe.skipIf(!available)("the user's secret files stay hidden from a session's later commands (real bubblewrap)", () => {
  let base: string;
  let repo: string;
  let env: Record<string, string>;

  beforeEach(() => {
    const cache = path.join(os.homedir(), ".cache");
    fs.mkdirSync(cache, { recursive: true });
    base = fs.mkdtempSync(path.join(cache, "otto-test-secrets-"));
    repo = path.join(base, "tree");
    const home = path.join(base, "home");
    fs.mkdirSync(home);
    env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LANG: "C.UTF-8",
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      XDG_DATA_HOME: path.join(home, ".local", "share"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    };
    execFileSync("git", ["init", "-q", repo], { env });
    fs.writeFileSync(path.join(repo, "a.txt"), "one\n");
    fs.writeFileSync(path.join(repo, ".gitignore"), ".env\n");
    execFileSync("git", ["add", "a.txt", ".gitignore"], { cwd: repo, env });
    execFileSync("git", ["commit", "-qm", "start"], { cwd: repo, env });
    fs.writeFileSync(path.join(repo, ".env"), `${SECRET}\n`);
  });

  afterEach(() => {
    forgetSecretFiles(repo);
    fs.rmSync(base, { recursive: true, force: true });
  });

  async function sh(argv: string[]): Promise<string> {
    try {
      const { stdout, stderr } = await run(argv[0] ?? "/bin/sh", argv.slice(1), { cwd: repo, env, timeout: 60_000 });
      return stdout + stderr;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      return `${e.stdout ?? ""}${e.stderr ?? ""}`;
    }
  }
  const outside = (command: string) => sh(["/bin/sh", "-c", command]);
  const inside = (command: string) =>
    sh(planCommand({ mode: "required", cwd: repo, tree: { root: repo, gitDirs: [path.join(repo, ".git")] }, env }, command).argv);

  it("an index entry a session adds for .env in one command does not show it to the next, nor to a later process", async () => {
    expect(await outside("cat .env")).toContain(SECRET);
    expect(await inside("cat .env")).not.toContain(SECRET);
    // The session's command: an index entry for .env naming some blob (it cannot read the file to hash it).
    await inside("git update-index --add --cacheinfo 100644,$(git hash-object -w --stdin </dev/null),.env");
    expect(readIndexPaths(path.join(repo, ".git", "index"))?.has(".env")).toBe(true);
    expect(await inside("cat .env")).not.toContain(SECRET);
    // otto started again: its first look at the tree finds the index entry already there.
    forgetSecretFiles(repo);
    expect(await inside("cat .env")).not.toContain(SECRET);
    // The control: a file tracked with its content is shown.
    fs.writeFileSync(path.join(repo, "fixture.key"), "FIXTURE KEY\n");
    execFileSync("git", ["add", "fixture.key"], { cwd: repo, env });
    forgetSecretFiles(repo);
    expect(await inside("cat fixture.key")).toBe("FIXTURE KEY\n");
  });

  it("a folder holding .env renamed by a session into node_modules/: the next command does not see it there", async () => {
    fs.mkdirSync(path.join(repo, "config"));
    fs.renameSync(path.join(repo, ".env"), path.join(repo, "config", ".env"));
    expect(await inside("cat config/.env")).not.toContain(SECRET);
    await inside("mkdir -p node_modules/x && mv config node_modules/x/");
    expect(await outside("cat node_modules/x/config/.env")).toContain(SECRET);
    expect(await inside("cat node_modules/x/config/.env")).not.toContain(SECRET);
  });

  it("a .env twelve folders deep is hidden like one at the top, in this process and the next", async () => {
    const deep = path.join("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l");
    fs.mkdirSync(path.join(repo, deep), { recursive: true });
    fs.writeFileSync(path.join(repo, deep, ".env"), `${SECRET}\n`);
    const read = `cat ${path.join(deep, ".env")}`;
    expect(await outside(read)).toContain(SECRET);
    const probe = await inside(`${read}; ls -a ${deep}`);
    // The command ran there (it lists the folder), and the file was empty to it.
    expect(probe).toContain(".env");
    expect(probe).not.toContain(SECRET);
    forgetSecretFiles(repo);
    expect(await inside(read)).not.toContain(SECRET);
  });

  it("20,001 files in +cache/, made by a session, do not spend a walk that finds .env, in this process or the next", async () => {
    expect(await inside("cat .env")).not.toContain(SECRET);
    await inside("mkdir +cache && cd +cache && seq 1 20001 | xargs touch");
    expect(fs.readdirSync(path.join(repo, "+cache"))).toHaveLength(20_001);
    expect("+cache" < ".env").toBe(true);
    expect(await inside("cat .env")).not.toContain(SECRET);
    forgetSecretFiles(repo);
    expect(await inside("cat .env")).not.toContain(SECRET);
    expect(await outside("cat .env")).toContain(SECRET);
    // 20,001 files made and walked three times: seconds alone, more on a loaded machine.
  }, 120_000);
});

describe("findSecretFiles (real files, no sandbox)", () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "otto-secret-files-"));
  });
  afterEach(() => {
    forgetSecretFiles(root);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("a hidden file whose folder is renamed into a folder the walk skips is found again by its inode", () => {
    fs.mkdirSync(path.join(root, "config"));
    fs.writeFileSync(path.join(root, "config", ".env"), `${SECRET}\n`);
    expect(findSecretFiles(root)).toEqual([path.join(root, "config", ".env")]);
    fs.mkdirSync(path.join(root, "node_modules", "x"), { recursive: true });
    fs.renameSync(path.join(root, "config"), path.join(root, "node_modules", "x", "config"));
    expect(findSecretFiles(root)).toEqual([path.join(root, "node_modules", "x", "config", ".env")]);
    // Deleted: nothing left to hide, and no search the next time.
    fs.rmSync(path.join(root, "node_modules"), { recursive: true });
    expect(findSecretFiles(root)).toEqual([]);
  });

  it.skipIf(process.getuid?.() === 0)("moved behind a folder otto cannot read: refused, not shown", () => {
    fs.mkdirSync(path.join(root, "config"));
    fs.writeFileSync(path.join(root, "config", ".env"), `${SECRET}\n`);
    expect(findSecretFiles(root)).toHaveLength(1);
    fs.mkdirSync(path.join(root, "locked"));
    fs.renameSync(path.join(root, "config"), path.join(root, "locked", "config"));
    fs.chmodSync(path.join(root, "locked"), 0o000);
    try {
      expect(() => findSecretFiles(root)).toThrow(/cannot be read/);
      expect(() => findSecretFiles(root)).toThrow(/cannot be read/);
    } finally {
      fs.chmodSync(path.join(root, "locked"), 0o755);
    }
    expect(findSecretFiles(root)).toEqual([path.join(root, "locked", "config", ".env")]);
  });

  it("checks names breadth-first with no entry budget: a deep .env under many files is found", () => {
    fs.mkdirSync(path.join(root, "+cache"));
    for (let i = 0; i < 20_001; i++) fs.writeFileSync(path.join(root, "+cache", String(i)), "");
    fs.mkdirSync(path.join(root, "z", "y"), { recursive: true });
    fs.writeFileSync(path.join(root, "z", "y", ".env"), `${SECRET}\n`);
    expect(findSecretFiles(root)).toEqual([path.join(root, "z", "y", ".env")]);
  });
});
