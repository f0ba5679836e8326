import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { runGit } from "../../../src/workspace/index.ts";
import { clone, fakeGit } from "../repo/fixtures.ts";

/*
 * A git killed by a timeout leaves its index.lock; runGit removes it only when it is the killed
 * git's own (created after that git started, held by no running process).
 */

async function timeout(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isOttoError(error)) throw new Error(`expected an OttoError, got ${String(error)}`);
  expect(error.code).toBe("git_timeout");
  return error.message;
}

describe.skipIf(!fs.existsSync("/proc/self/fd"))("index.lock after a git timeout", () => {
  it("removes the lock a hung `git add` took, so the next write works", async () => {
    const repo = await clone();
    const lock = path.join(repo.dir, ".git", "index.lock");
    // Takes the lock like git does, then hangs (a slow filesystem, a stuck hook).
    const fake = fakeGit(`: > '${lock}'\nexec sleep 30`);
    const message = await timeout(runGit(["add", "--all"], { cwd: repo.dir, env: fake.env, timeouts: { work: 300 } }));
    expect(message).toContain(`Removed the ${lock} it left behind.`);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("keeps a lock that was there before the killed git started (someone else's)", async () => {
    const repo = await clone();
    const lock = path.join(repo.dir, ".git", "index.lock");
    fs.writeFileSync(lock, "");
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, past, past);
    const fake = fakeGit("exec sleep 30");
    const message = await timeout(runGit(["commit", "-m", "x"], { cwd: repo.dir, env: fake.env, timeouts: { work: 300 } }));
    expect(message).not.toContain("Removed");
    expect(fs.existsSync(lock)).toBe(true);
  });

  it("keeps a lock another running process holds open", async () => {
    const repo = await clone();
    const lock = path.join(repo.dir, ".git", "index.lock");
    // The hung git starts a holder in its own session (not killed with git's group) that keeps the lock open.
    const holder = path.join(repo.dir, "..", "holder.pid");
    const fake = fakeGit(
      `: > '${lock}'\nsetsid sh -c 'exec 3<"${lock}"; echo $$ > "${holder}"; exec sleep 30' &\nsleep 0.2\nexec sleep 30`,
    );
    try {
      const message = await timeout(runGit(["add", "--all"], { cwd: repo.dir, env: fake.env, timeouts: { work: 500 } }));
      expect(message).not.toContain("Removed");
      expect(fs.existsSync(lock)).toBe(true);
    } finally {
      const pid = Number(fs.readFileSync(holder, "utf8").trim());
      if (pid) process.kill(pid, "SIGKILL");
    }
  });

  it("does not look for a lock after a read times out", async () => {
    const repo = await clone();
    const lock = path.join(repo.dir, ".git", "index.lock");
    const fake = fakeGit(`: > '${lock}'\nexec sleep 30`);
    await timeout(runGit(["status"], { cwd: repo.dir, env: fake.env, timeouts: { read: 300 } }));
    expect(fs.existsSync(lock)).toBe(true);
  });
});
