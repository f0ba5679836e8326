import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { detectSandbox, userGitSettings } from "../../../src/sandbox/index.ts";
import { heldSandbox } from "../../../src/workspace/tree-layout.ts";
import {
  commitAll,
  commitAndPush,
  runCheck,
  runGit,
  snapshotGitControl,
  snapshotTree,
  unsignedLine,
} from "../../../src/workspace/index.ts";
import { DEV_SECRETS, DEVELOPER, developerHome } from "../../support/dev-home.ts";
import { createRepo, git as plainGit, gitEnv, type Repo } from "../../support/git.ts";

/*
 * Otto on a developer's machine: a ~/.gitconfig with an identity, a credential helper and a global
 * ignore file. Once sandboxed code has held a tree, otto's own local git there runs inside the
 * sandbox, where the user's home is replaced by an empty one: the guard must not read the hidden
 * global file as "removed", the commit must carry the user's identity, and what the user ignores
 * everywhere must stay out of it. The tree and home live outside /tmp (dev-home.ts).
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";

let repo: Repo | undefined;
let cleanups: Array<() => void> = [];
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

/** A clone with no identity of its own (the home gives it), in a developer's home. */
async function setup(options: Parameters<typeof developerHome>[0] = {}) {
  const dev = developerHome(options);
  cleanups.push(() => dev.cleanup());
  const env: Record<string, string> = { ...gitEnv(), ...dev.env };
  delete env.GIT_CONFIG_GLOBAL;
  repo = await createRepo({ dir: path.join(dev.root, "work", "project"), remote: false });
  await repo.git(["config", "--unset", "user.name"]);
  await repo.git(["config", "--unset", "user.email"]);
  await repo.git(["config", "--unset", "commit.gpgsign"]);
  const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
  return { dev, env, git, dir: repo.dir };
}

/** What a session's shell does, in the sandbox: the tree is held from then on. */
async function sessionShell(dir: string, env: Record<string, string>, command: string): Promise<void> {
  const result = await runCheck(command, { cwd: dir, sandbox: "auto", env, timeoutMs: 60_000 });
  expect(result.passed, result.output).toBe(true);
  expect(heldSandbox(fs.realpathSync(dir))).toBe("auto");
}

describe.skipIf(!sandboxed)("a developer's home, once sandboxed code held the tree (real bubblewrap)", () => {
  it("commits with the user's identity, takes nothing the global ignore file ignores, and the guard sees no change", async () => {
    const { env, git, dir } = await setup();
    const snapshot = await snapshotGitControl(dir, { env });
    // Positive control: the snapshot did read the user's global file outside (a key from it is in git's answer there).
    expect((await runGit(["config", "--show-origin", "user.email"], { cwd: dir, env })).stdout).toContain(".gitconfig");
    const baseline = await snapshotTree(git, dir);
    await sessionShell(dir, env, "echo work > work.txt && mkdir -p .idea && echo '<x/>' > .idea/workspace.xml && echo junk > .DS_Store");
    const result = await commitAll(git, dir, "feat: work", { baseline, guard: { snapshot, env } });
    expect(result.sha).toMatch(/^[0-9a-f]{7,}$/);
    expect((await repo!.git(["show", "--name-only", "--format=", "HEAD"])).split("\n")).toEqual(["work.txt"]);
    expect(await repo!.git(["log", "-1", "--format=%an <%ae>|%cn <%ce>"])).toBe(
      `${DEVELOPER.name} <${DEVELOPER.email}>|${DEVELOPER.name} <${DEVELOPER.email}>`,
    );
    // The ignored files are the user's: still there, untracked.
    expect(fs.existsSync(path.join(dir, ".idea", "workspace.xml"))).toBe(true);
    expect(await repo!.git(["ls-files", ".idea", ".DS_Store"])).toBe("");
  });

  it("a file of the tree the checkout's config includes is read-only inside; one that was missing and a command made is moved out after it, and refused at the commit if it comes back", async () => {
    const { env, git, dir } = await setup();
    const shipped = "[core]\n\tautocrlf = false\n";
    fs.writeFileSync(path.join(dir, ".gitconfig-project"), shipped);
    await repo!.git(["config", "include.path", "../.gitconfig-project"]);
    await repo!.git(["config", "--add", "include.path", "../.gitconfig-local"]);
    const snapshot = await snapshotGitControl(dir, { env });
    const baseline = await snapshotTree(git, dir);
    // The session tries to make the user's next git run a program through the included file: the write is refused.
    const planted = await runCheck("printf '[core]\\n\\tfsmonitor = ./evil.sh\\n' >> .gitconfig-project", {
      cwd: dir,
      sandbox: "auto",
      env,
      timeoutMs: 60_000,
    });
    expect(planted.passed).toBe(false);
    expect(planted.output).toMatch(/Read-only file system/);
    expect(fs.readFileSync(path.join(dir, ".gitconfig-project"), "utf8")).toBe(shipped);
    // An include whose file is missing has nothing to mount on: the command can make it, and the look after it moves it out.
    const made = await runCheck("printf '[core]\\n\\tfsmonitor = ./evil.sh\\n' > .gitconfig-local && echo w > work.txt", {
      cwd: dir,
      sandbox: "auto",
      env,
      timeoutMs: 60_000,
    });
    expect(made.output).toContain("moved .gitconfig-local out of the tree");
    expect(fs.existsSync(path.join(dir, ".gitconfig-local"))).toBe(false);
    expect(fs.readFileSync(path.join(dir, "work.txt"), "utf8")).toBe("w\n");
    // Made past that look (a process the command left running): otto's commit refuses it.
    fs.writeFileSync(path.join(dir, ".gitconfig-local"), "[core]\n\tfsmonitor = ./evil.sh\n");
    const error = await commitAll(git, dir, "feat: work", { baseline, guard: { snapshot, env } }).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("git_control_changed");
    expect(String((error as Error).message)).toMatch(/gitconfig-local core\.fsmonitor added/);
    expect(String((error as Error).message)).not.toMatch(/\.gitconfig user\./);
  });

  it("a tree's config that includes ~/.gitconfig and ~/.npmrc shows neither inside: a cleaned copy goes only where the file is shown anyway", async () => {
    const { dev, env, dir } = await setup();
    const smtp = "SmtpPassword-DevHome-0123456789";
    fs.appendFileSync(path.join(dev.home, ".gitconfig"), `[sendemail]\n\tsmtppass = ${smtp}\n`);
    // One registry line with user info: ~/.npmrc "holds a credential" as git-config-view.ts reads it.
    fs.appendFileSync(path.join(dev.home, ".npmrc"), "@corp:registry=https://dana:corp-pass@npm.corp.example/\n");
    // A project's shipped git settings (a PR's branch wrote them) that .git/config includes.
    fs.writeFileSync(path.join(dir, ".gitconfig"), "[include]\n\tpath = ~/.gitconfig\n\tpath = ~/.npmrc\n");
    await repo!.git(["config", "include.path", "../.gitconfig"]);
    await sessionShell(dir, env, "(cat ~/.gitconfig; cat ~/.npmrc; git config --list) > seen.txt 2>&1; true");
    const seen = fs.readFileSync(path.join(dir, "seen.txt"), "utf8");
    expect(seen).not.toContain(smtp);
    expect(seen).not.toContain(DEV_SECRETS.npmToken);
    // git inside read the tree's config and its includes; ~/.npmrc is not there.
    expect(seen).toContain("include.path=~/.npmrc");
    expect(seen).toMatch(/\.npmrc: No such file or directory/);
  });

  it("the local configuration changed from outside (a pushurl) is refused while the global file is not compared", async () => {
    const { env, git, dir } = await setup();
    const snapshot = await snapshotGitControl(dir, { env });
    const baseline = await snapshotTree(git, dir);
    await sessionShell(dir, env, "echo w > work.txt");
    await repo!.git(["config", "remote.origin.pushurl", "/elsewhere.git"]);
    const error = await commitAll(git, dir, "feat: work", { baseline, guard: { snapshot, env } }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/Nothing committed: .*remote\.origin\.pushurl added/);
    expect(String((error as Error).message)).not.toMatch(/user\.(name|email)|credential\.helper/);
  });

  it("includeIf sections give the same identity inside as outside", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    const work = path.join(dev.root, "work");
    fs.writeFileSync(path.join(dev.home, ".gitconfig-work"), "[user]\n\temail = dana@work.invalid\n");
    fs.appendFileSync(path.join(dev.home, ".gitconfig"), `[includeIf "gitdir:${work}/"]\n\tpath = ~/.gitconfig-work\n`);
    const env: Record<string, string> = { ...gitEnv(), ...dev.env };
    delete env.GIT_CONFIG_GLOBAL;
    repo = await createRepo({ dir: path.join(work, "project"), remote: false });
    await repo.git(["config", "--unset", "user.email"]);
    const dir = repo.dir;
    const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, dir);
    await sessionShell(dir, env, "echo w > work.txt && git config user.email > seen-email.txt");
    expect(fs.readFileSync(path.join(dir, "seen-email.txt"), "utf8").trim()).toBe("dana@work.invalid");
    await commitAll(git, dir, "feat: work", { baseline });
    expect(await repo.git(["log", "-1", "--format=%ae"])).toBe("dana@work.invalid");
  });

  it("an email from $EMAIL (git's fallback for user.email): otto's commit in the held tree takes it, as git outside does", async () => {
    const { dev, env, dir } = await setup();
    const config = path.join(dev.home, ".gitconfig");
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace(/\temail = .*\n/, ""));
    const withEmail = { ...env, EMAIL: "dana@from-env.invalid" };
    // Positive control: git outside takes the address from the environment.
    expect(spawnSync("git", ["var", "GIT_AUTHOR_IDENT"], { cwd: dir, env: withEmail, encoding: "utf8" }).stdout).toContain(
      "<dana@from-env.invalid>",
    );
    const run = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env: withEmail });
    const baseline = await snapshotTree(run, dir);
    await sessionShell(dir, withEmail, "echo w > work.txt");
    await commitAll(run, dir, "feat: work", { baseline });
    expect(await repo!.git(["log", "-1", "--format=%an <%ae>"])).toBe(`${DEVELOPER.name} <dana@from-env.invalid>`);
  });

  it("user.useConfigOnly is shown inside: git there guesses no identity from the host name where the user forbade it", async () => {
    const { dev, env, dir } = await setup();
    fs.appendFileSync(path.join(dev.home, ".gitconfig"), "[user]\n\tuseConfigOnly = true\n");
    await sessionShell(dir, env, "git config user.useConfigOnly > seen-only.txt; true");
    expect(fs.readFileSync(path.join(dir, "seen-only.txt"), "utf8").trim()).toBe("true");
  });

  it("the sandbox sees the user's kept git settings, never the credential helper or the stored credentials", async () => {
    const { env, dir } = await setup();
    await sessionShell(
      dir,
      env,
      "git config --global --list > seen-config.txt; cat ~/.git-credentials > seen-creds.txt 2>&1; cat ~/.npmrc >> seen-creds.txt 2>&1; true",
    );
    const seen = fs.readFileSync(path.join(dir, "seen-config.txt"), "utf8");
    expect(seen).toContain(`user.email=${DEVELOPER.email}`);
    expect(seen).toMatch(/core\.excludesfile=\/.*\.gitignore_global/);
    expect(seen).toContain("init.defaultbranch=main");
    expect(seen).not.toContain("credential");
    expect(seen).not.toContain("pull.rebase");
    const creds = fs.readFileSync(path.join(dir, "seen-creds.txt"), "utf8");
    expect(creds).not.toMatch(/ghp_|npm_/);
  });
});

describe.skipIf(!sandboxed)("commit signing (real bubblewrap)", () => {
  it("a signing home: otto's commits are unsigned, no signing program runs, and the summary line says so", async () => {
    const { env, git, dir, dev } = await setup({ signing: true });
    // Positive control: the user's own git would sign (and this signer fails, so the commit would fail).
    const own = spawnSync("git", ["commit", "--allow-empty", "-m", "own"], { cwd: dir, env, encoding: "utf8" });
    expect(fs.existsSync(dev.signLog)).toBe(true);
    expect(own.status).not.toBe(0);
    fs.rmSync(dev.signLog);

    const baseline = await snapshotTree(git, dir);
    fs.writeFileSync(path.join(dir, "outside.txt"), "x\n");
    // Before any sandboxed code: otto's git runs outside, and still does not sign.
    await commitAll(git, dir, "feat: outside", { baseline });
    const before = await snapshotTree(git, dir);
    await sessionShell(dir, env, "echo w > work.txt");
    await commitAll(git, dir, "feat: inside", { baseline: before });
    expect(await repo!.git(["show", "--name-only", "--format=", "HEAD"])).toBe("work.txt");
    expect(fs.existsSync(dev.signLog)).toBe(false);
    expect(await repo!.git(["cat-file", "commit", "HEAD"])).not.toContain("gpgsig");
    expect(unsignedLine(env)).toMatch(/unsigned .*commit\.gpgSign.*signed commits refuses the push/);
    expect(userGitSettings(env).signs).toBe(true);
  });

  it("a home that does not sign: no summary line", async () => {
    const { env } = await setup();
    expect(unsignedLine(env)).toBeUndefined();
  });
});

describe.skipIf(!sandboxed)("credentials in the checkout's git configuration and the environment (real bubblewrap)", () => {
  it("a token in the remote URL, an extraheader and a credential section are not shown inside; the guard sees no change; the user's GIT_CONFIG_* entries stay outside", async () => {
    const { env, git, dir } = await setup();
    const token = "ghp_TokenInRemoteUrl0123456789abcdefXYZ";
    const header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX0NoZWNrb3V0VG9rZW4";
    await repo!.git(["remote", "add", "origin", `https://x-access-token:${token}@github.com/octo/app.git`]);
    await repo!.git(["config", "http.https://github.com/.extraheader", header]);
    await repo!.git(["config", "credential.https://github.com.helper", `!f() { echo password=${token}; }; f`]);
    const withEnv = {
      ...env,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraheader",
      GIT_CONFIG_VALUE_0: "AUTHORIZATION: bearer ghp_EnvHeader0123456789abcdef",
    };
    const snapshot = await snapshotGitControl(dir, { env: withEnv });
    const baseline = await snapshotTree(git, dir);
    // Positive control: the file outside holds all three.
    const outside = fs.readFileSync(path.join(dir, ".git", "config"), "utf8");
    expect(outside).toContain(token);
    expect(outside).toContain(header);
    await sessionShell(
      dir,
      withEnv,
      "cat .git/config > seen.txt; git remote -v >> seen.txt; git config --list >> seen.txt 2>&1; env | grep -i GIT_CONFIG >> seen.txt; echo w > work.txt",
    );
    const seen = fs.readFileSync(path.join(dir, "seen.txt"), "utf8");
    expect(seen).toContain("https://github.com/octo/app.git");
    expect(seen).not.toContain(token);
    expect(seen).not.toMatch(/eC1hY2Nlc3MtdG9rZW4|EnvHeader|password=/);
    fs.rmSync(path.join(dir, "seen.txt"));
    const result = await commitAll(git, dir, "feat: work", { baseline, guard: { snapshot, env: withEnv } });
    expect(result.sha).toMatch(/^[0-9a-f]{7,}$/);
    // The file itself is untouched: otto's own fetch and push use it outside.
    expect(fs.readFileSync(path.join(dir, ".git", "config"), "utf8")).toBe(outside);
  });
  it("a credential in a file .git/config includes (actions/checkout's $RUNNER_TEMP/git-credentials-*.config, outside the home) is not shown inside; its other keys are", async () => {
    const { dev, env, dir } = await setup();
    const runnerTemp = path.join(dev.root, "actions-runner", "_work", "_temp");
    fs.mkdirSync(runnerTemp, { recursive: true });
    const header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX0luY2x1ZGVkVG9rZW4";
    const creds = path.join(runnerTemp, "git-credentials-1b2c.config");
    fs.writeFileSync(creds, `[http "https://github.com/"]\n\textraheader = ${header}\n[core]\n\tabbrev = 12\n`);
    // One include chained behind another, by a relative path: followed the way git follows it.
    fs.writeFileSync(path.join(runnerTemp, "outer.config"), "[include]\n\tpath = git-credentials-1b2c.config\n");
    await repo!.git(["config", `includeIf.gitdir:${fs.realpathSync(dir)}/.git.path`, path.join(runnerTemp, "outer.config")]);
    const probe = `git config --get-regexp extraheader; cat ${creds}; git config core.abbrev`;
    // Positive control: outside, git reads the header through both includes.
    const outside = spawnSync("/bin/sh", ["-c", probe], { cwd: dir, env, encoding: "utf8" });
    expect(outside.stdout).toContain(header);
    await sessionShell(dir, env, `(${probe}) > seen.txt 2>&1; git status --short >> seen.txt`);
    const seen = fs.readFileSync(path.join(dir, "seen.txt"), "utf8");
    expect(seen).not.toContain("eC1hY2Nlc3MtdG9rZW46Z2hzX0luY2x1ZGVkVG9rZW4");
    expect(seen).toMatch(/^12$/m);
    expect(seen).toContain("?? seen.txt");
    // The included file itself is untouched outside.
    expect(fs.readFileSync(creds, "utf8")).toContain(header);
  });
});

describe.skipIf(!sandboxed)("a home whose settings would run programs or change otto's git (real bubblewrap)", () => {
  it("commit, rebase and push outside and in the held tree: no hook, pager, external diff or signer runs; no template, stash or moved branch; the user's identity", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    const ran = path.join(dev.root, "ran.log");
    const { tangledSettings } = await import("../../support/dev-home.ts");
    tangledSettings(dev.home, ran);
    const env: Record<string, string> = { ...gitEnv(), ...dev.env };
    delete env.GIT_CONFIG_GLOBAL;
    repo = await createRepo({ dir: path.join(dev.root, "work", "project"), files: { "a.txt": "one\n" } });
    for (const key of ["user.name", "user.email", "commit.gpgsign"]) await repo.git(["config", "--unset", key]);
    // Positive control: the user's own git runs their failing pre-commit hook, and would sign.
    fs.writeFileSync(path.join(repo.dir, "control.txt"), "x\n");
    const own = spawnSync("sh", ["-c", "git add control.txt && git commit -m own && git log -p -1 | cat"], {
      cwd: repo.dir,
      env,
      encoding: "utf8",
    });
    expect(own.status).not.toBe(0);
    expect(fs.readFileSync(ran, "utf8")).toMatch(/^hook:pre-commit /m);
    fs.rmSync(ran);
    await repo.git(["reset", "-q", "HEAD", "control.txt"]);
    fs.rmSync(path.join(repo.dir, "control.txt"));
    // Someone else moves main on the remote: otto's push is rejected, then it rebases and pushes again.
    const other = path.join(dev.root, "other");
    await plainGit(["clone", "-q", repo.remote, other], dev.root);
    fs.writeFileSync(path.join(other, "b.txt"), "theirs\n");
    await plainGit(["add", "b.txt"], other);
    await plainGit(["commit", "-qm", "theirs"], other);
    await plainGit(["push", "-q", "origin", "main"], other);

    const baseline = await snapshotTree((args, o) => runGit(args, { ...o, env }), repo.dir);
    // Before any sandboxed code, otto's git runs outside; the session then holds the tree.
    const first = await commitAll((args, o) => runGit(args, { ...o, env }), repo.dir, "feat: outside", { baseline });
    expect(first.sha).toMatch(/^[0-9a-f]{7,}$/);
    // A branch of the user's on the commit the rebase replays: rebase.updateRefs would move it.
    await repo.git(["branch", "wip"]);
    const wip = await repo.git(["rev-parse", "wip"]);
    const later = await snapshotTree((args, o) => runGit(args, { ...o, env }), repo.dir);
    await sessionShell(repo.dir, env, "echo w > work.txt && echo noise > build.log && mkdir -p dist && echo out > dist/out.js");
    const pushed = await commitAndPush({ dir: repo.dir, branch: "main", remote: "origin", message: "otto: work", baseline: later, env });
    expect(pushed).toMatchObject({ outcome: "pushed", rebased: true, committed: true });
    expect(pushed.detail).toMatch(/unsigned/);

    expect(fs.existsSync(ran) ? fs.readFileSync(ran, "utf8") : "").toBe("");
    const log = await repo.gitRemote(["log", "-3", "--format=%s|%an <%ae>|%G?"]);
    expect(log.split("\n")).toEqual([
      `otto: work|${DEVELOPER.name} <${DEVELOPER.email}>|N`,
      `feat: outside|${DEVELOPER.name} <${DEVELOPER.email}>|N`,
      "theirs|Otto Test <otto-test@example.invalid>|N",
    ]);
    expect(await repo.gitRemote(["show", "--name-only", "--format=", "main"])).toBe("work.txt");
    // What the user ignores everywhere stays theirs; their other branch and their stash are untouched.
    expect(fs.existsSync(path.join(repo.dir, "dist", "out.js"))).toBe(true);
    expect(await repo.git(["stash", "list"])).toBe("");
    expect(await repo.git(["rev-parse", "wip"])).toBe(wip);
  });
});
