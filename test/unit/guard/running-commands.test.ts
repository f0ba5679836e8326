import { describe, expect, it } from "vitest";
import { GuardBlocked } from "../../../src/guard/blocked.ts";
import { QUIET_WAIT_MS, RunningCommands, STALE_COMMAND_MS } from "../../../src/guard/running-commands.ts";

/*
 * The file tools' wait for the guarded shell commands running now (running-commands.ts), on a
 * clock the test moves: each sleep advances it by the time asked.
 */
function clocked() {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const commands = new RunningCommands({
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
      await Promise.resolve();
    },
  });
  return { commands, sleeps, advance: (ms: number) => (now += ms), at: () => now };
}

describe("RunningCommands", () => {
  it("returns at once with nothing running, and waits for a command until it ends", async () => {
    const { commands, sleeps } = clocked();
    await commands.quiet("read");
    expect(sleeps).toEqual([]);
    commands.started("call_1", "ses_1");
    expect(commands.size).toBe(1);
    const waiting = commands.quiet("edit");
    let done = false;
    void waiting.then(() => (done = true));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(done).toBe(false);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(sleeps.every((ms) => ms === 50)).toBe(true);
    commands.ended("call_1");
    await waiting;
    expect(commands.size).toBe(0);
  });

  it("refuses the tool past two minutes of waiting, naming it and the way out; not before", async () => {
    const { commands, sleeps } = clocked();
    commands.started("call_1", "ses_1");
    const error = await commands.quiet("write").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardBlocked);
    expect((error as Error).message).toBe(
      "Otto blocked this: write while a shell command of this session's tree is still running (wait for it to end, then call write again). " +
        "Sessions otto runs cannot push, merge, call the forge, or change the checkout's git configuration, hooks or the environment otto set. " +
        "Otto pushes for you after its checks pass: commit your work (if your task says to) and stop.",
    );
    // It waited the whole two minutes (and one poll past them), at 50 ms a look.
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(QUIET_WAIT_MS + 50);
  });

  it("a command older than the bash tool's longest timeout is taken as gone; one just under it is waited for", async () => {
    const { commands, advance } = clocked();
    commands.started("old", "ses_1");
    advance(STALE_COMMAND_MS + 1);
    await commands.quiet("read");
    expect(commands.size).toBe(0);
    commands.started("young", "ses_1");
    advance(STALE_COMMAND_MS - QUIET_WAIT_MS - 1000);
    await expect(commands.quiet("read")).rejects.toThrow(/read while a shell command/);
    expect(commands.size).toBe(1);
  });

  it("exactly at the stale age a command still counts; exactly at the wait's bound the tool still waits", async () => {
    const { commands, advance, sleeps } = clocked();
    commands.started("a", "ses_1");
    advance(STALE_COMMAND_MS);
    const waiting = commands.quiet("read");
    await waiting;
    // One poll later it was older than the bound and taken as gone.
    expect(sleeps).toEqual([50]);
    const second = clocked();
    second.commands.started("b", "ses_1");
    // Ends exactly when the wait reaches its bound: the tool runs.
    const ending = second.commands.quiet("read");
    while (second.sleeps.reduce((x, y) => x + y, 0) < QUIET_WAIT_MS) await Promise.resolve();
    second.commands.ended("b");
    await expect(ending).resolves.toBeUndefined();
  });

  it("a session's end clears its own commands, not another session's", async () => {
    const { commands } = clocked();
    commands.started("a1", "ses_a");
    commands.started("a2", "ses_a");
    commands.started("b1", "ses_b");
    commands.sessionEnded("ses_a");
    expect(commands.size).toBe(1);
    await expect(commands.quiet("read")).rejects.toThrow(GuardBlocked);
    commands.ended("b1");
    await expect(commands.quiet("read")).resolves.toBeUndefined();
  });

  it("without a sleep given, it polls on a real timer", async () => {
    let now = 0;
    const commands = new RunningCommands({ now: () => now });
    commands.started("a", "ses_1");
    const waiting = commands.quiet("read");
    setTimeout(() => {
      now = 10;
      commands.ended("a");
    }, 5);
    await expect(waiting).resolves.toBeUndefined();
  });
});
