import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError, type OttoError } from "../../../src/core/index.ts";
import { defaultTimeout, gitFailure, gitOutput, repoRoot, runGit } from "../../../src/workspace/index.ts";
import { git, gitEnv } from "../../support/git.ts";
import { GIT, clone, fakeGit, tempDir } from "../repo/fixtures.ts";

async function rejection(promise: Promise<unknown>): Promise<OttoError> {
  try {
    await promise;
  } catch (error) {
    if (isOttoError(error)) return error;
    throw error;
  }
  throw new Error("expected an OttoError");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("runGit", () => {
  it("returns exit code, stdout and stderr, and does not throw on a non-zero exit", async () => {
    const repo = await clone();
    const ok = await runGit(["rev-parse", "--abbrev-ref", "HEAD"], { ...GIT, cwd: repo.dir });
    expect(ok).toEqual({ exitCode: 0, stdout: "main\n", stderr: "" });
    const bad = await runGit(["rev-parse", "--verify", "no-such-ref"], { ...GIT, cwd: repo.dir });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("Needed a single revision");
  });

  it("kills a hung git, and what it started, at the timeout and names the command", async () => {
    const pidFile = path.join(tempDir(), "child.pid");
    // Like git waiting on ssh: a child that holds stdout/stderr open.
    const fake = fakeGit(`sleep 30 &\necho $! > '${pidFile}'\nwait`);
    const started = Date.now();
    const error = await rejection(runGit(["fetch", "origin"], { cwd: tempDir(), env: fake.env, timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe("git_timeout");
    expect(error.message).toContain("git -C");
    expect(error.message).toContain("fetch origin` did not finish within 0.3 s");
    expect(error.fix).toContain("fetch origin");
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    await expect.poll(() => alive(pid), { timeout: 2_000 }).toBe(false);
  });

  it("takes the binary from the options or from env.PATH, with prompts off and repo-location variables dropped", async () => {
    const fake = fakeGit('echo "prompt=$GIT_TERMINAL_PROMPT locks=$GIT_OPTIONAL_LOCKS lc=$LC_ALL dir=$GIT_DIR args=$*"');
    const viaPath = await runGit(["status"], { cwd: tempDir(), env: { ...fake.env, GIT_DIR: "/elsewhere/.git" } });
    expect(viaPath.stdout.trim()).toBe("prompt=0 locks=0 lc=C dir= args=status");
    const viaBinary = await runGit(["log"], { cwd: tempDir(), env: gitEnv(), binary: fake.binary });
    expect(viaBinary.stdout).toContain("args=log");
  });

  it("reports a missing git binary and a missing directory as different errors", async () => {
    expect((await rejection(runGit(["status"], { cwd: tempDir(), binary: "/no/such/git" }))).code).toBe("git_missing");
    expect((await rejection(runGit(["status"], { ...GIT, cwd: "/no/such/dir" }))).code).toBe("git_no_directory");
  });

  it("stops git when its output exceeds maxBuffer", async () => {
    const fake = fakeGit("yes otto | head -c 100000");
    expect((await rejection(runGit(["log"], { cwd: tempDir(), env: fake.env, maxBuffer: 1000 }))).code).toBe("git_output");
  });

  it("gives local reads 10 s, network commands 30 s, and index or work-tree writes (hooks) 5 minutes", () => {
    expect(defaultTimeout(["status", "--porcelain=v2"])).toBe(10_000);
    expect(defaultTimeout(["rev-parse", "HEAD"])).toBe(10_000);
    expect(defaultTimeout(["fetch", "origin"])).toBe(30_000);
    expect(defaultTimeout(["push"])).toBe(30_000);
    expect(defaultTimeout(["worktree", "add", "x"])).toBe(300_000);
    expect(defaultTimeout(["add", "--all"])).toBe(300_000);
    expect(defaultTimeout(["--literal-pathspecs", "commit", "-q"])).toBe(300_000);
    expect(defaultTimeout(["rebase", "origin/x"])).toBe(300_000);
    expect(defaultTimeout(["commit"], { work: 50 })).toBe(50);
    expect(defaultTimeout(["-C", "/x", "-c", "a=b", "fetch"])).toBe(30_000);
    expect(defaultTimeout(["log", "--grep", "fetch"])).toBe(10_000);
  });
});

// Root's git refuses a repository another user owns; a user without root cannot make one to test with.
describe.skipIf(process.getuid?.() !== 0)("a repository owned by another user (git's safe.directory check)", () => {
  it("every git command otto runs there fails with git_unsafe_repository and the exact safe.directory command, not 'not a repository'", async () => {
    const repo = await clone();
    const dir = repo.dir;
    fs.chownSync(path.join(dir, ".git"), 65534, 65534);
    fs.chownSync(dir, 65534, 65534);
    for (const args of [
      ["rev-parse", "--absolute-git-dir"],
      ["status", "--porcelain"],
      ["rev-parse", "--show-toplevel"],
    ]) {
      const error = await rejection(runGit(args, { ...GIT, cwd: dir }));
      expect(error.code).toBe("git_unsafe_repository");
      expect(error.message).toContain(`git refuses to work in ${dir}: it is owned by another user`);
      expect(error.fix).toContain(`git config --global --add safe.directory '${dir}'`);
    }
    // The question "which repository is this?" no longer answers "none".
    expect((await rejection(repoRoot(dir, GIT))).code).toBe("git_unsafe_repository");
    // With the user's safe.directory entry, git works there again.
    const trusted = { env: gitEnv({ GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "safe.directory", GIT_CONFIG_VALUE_0: dir }) };
    expect((await runGit(["rev-parse", "--show-toplevel"], { ...trusted, cwd: dir })).stdout.trim()).toBe(dir);
  });
});

describe("git failures become errors with a fix", () => {
  it("not a repository", async () => {
    const error = await rejection(gitOutput(["status"], { ...GIT, cwd: tempDir() }));
    expect(error.code).toBe("git_not_a_repo");
  });

  it("missing identity", async () => {
    const dir = tempDir();
    await git(["init", "-q", "-b", "main"], dir);
    const env = { ...gitEnv({ HOME: dir }) };
    delete env.EMAIL;
    const error = await rejection(gitOutput(["-c", "user.useConfigOnly=true", "commit", "--allow-empty", "-m", "x"], { cwd: dir, env }));
    expect(error.code).toBe("git_identity");
    expect(error.fix).toContain("git config --global user.email");
    expect(error.message).toContain("git said:");
  });

  it("a lock file left in .git", async () => {
    const repo = await clone();
    fs.writeFileSync(path.join(repo.dir, ".git", "index.lock"), "");
    fs.writeFileSync(path.join(repo.dir, "new.txt"), "x");
    const error = await rejection(gitOutput(["add", "-A"], { ...GIT, cwd: repo.dir }));
    expect(error.code).toBe("git_lock");
    expect(error.fix).toContain(`rm '${path.join(repo.dir, ".git", "index.lock")}'`);
  });

  it("detached HEAD", async () => {
    const repo = await clone();
    await repo.git(["checkout", "-q", "--detach"]);
    const error = await rejection(gitOutput(["pull"], { ...GIT, cwd: repo.dir }));
    expect(error.code).toBe("git_detached_head");
    expect(error.fix).toContain(`git -C ${repo.dir} switch <branch>`);
  });

  it("a push that is not a fast-forward", async () => {
    const repo = await clone();
    const other = path.join(tempDir(), "other");
    await git(["clone", "-q", repo.remote, other], path.dirname(other));
    await git(["-c", "user.name=o", "-c", "user.email=o@example.invalid", "commit", "-q", "--allow-empty", "-m", "theirs"], other);
    await git(["push", "-q"], other);
    await repo.commit("mine");
    const error = await rejection(gitOutput(["push", "origin", "main"], { ...GIT, cwd: repo.dir }));
    expect(error.code).toBe("git_non_fast_forward");
    expect(error.fix).toContain("pull --rebase");
  });

  it("a remote that wants credentials: git_auth, since git runs with terminal prompts disabled", async () => {
    // What an HTTPS forge answers a clone without credentials: 401 with a Basic challenge.
    const server = http.createServer((_req, res) => res.writeHead(401, { "www-authenticate": 'Basic realm="forge"' }).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const repo = await clone();
      const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/org/app.git`;
      const error = await rejection(gitOutput(["fetch", url], { ...GIT, cwd: repo.dir }));
      expect(error.code).toBe("git_auth");
      expect(error.message).toContain(`\`git -C ${repo.dir} fetch ${url}\` could not authenticate with the remote.`);
      expect(error.message).toMatch(/git said: .*could not read Username/);
      expect(error.fix).toContain("credential helper");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.each([
    "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
    "remote: Invalid username or token.\nfatal: Authentication failed for 'https://github.com/org/app.git/'",
  ])("classifies the ssh and https auth failures git prints: %s", (stderr) => {
    expect(gitFailure(["push", "origin", "main"], "/r", { exitCode: 128, stdout: "", stderr }).code).toBe("git_auth");
  });

  it("anything else keeps git's message and the command to rerun", async () => {
    const repo = await clone();
    const error = await rejection(gitOutput(["checkout", "no-such-branch"], { ...GIT, cwd: repo.dir }));
    expect(error.code).toBe("git_failed");
    expect(error.message).toContain("no-such-branch");
    expect(error.fix).toBe(`Run it yourself to see the whole output: git -C ${repo.dir} checkout no-such-branch`);
  });
});
