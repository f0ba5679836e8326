import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { RepeatedCalls, describeCall, repeatedCallReason, stableJson } from "../../../src/guard/repeated-calls.ts";
import { SessionGuard } from "../../../src/guard/session-guard.ts";

describe("RepeatedCalls", () => {
  it("counts the same call (tool and arguments, keys in any order) since the session's last new call", () => {
    const calls = new RepeatedCalls();
    const note = (tool: string, args: unknown, session = "ses_1") => calls.note(session, tool, args);
    expect([1, 2, 3].map(() => note("bash", { command: "echo hi", description: "x" }))).toEqual([1, 2, 3]);
    expect(note("bash", { description: "x", command: "echo hi" })).toBe(4);
    // Another session has its own counts; other arguments are another call.
    expect(note("bash", { command: "echo hi", description: "x" }, "ses_2")).toBe(1);
    expect(note("bash", { command: "echo ho", description: "x" })).toBe(1);
    // A call never made before starts every count over: the session did something new.
    expect(note("bash", { command: "echo hi", description: "x" })).toBe(1);
  });

  it("catches a cycle of calls the session already made, and lets an edit-and-test cycle with new edits run", () => {
    const calls = new RepeatedCalls();
    const read = () => calls.note("s", "read", { filePath: "a.ts" });
    const test = () => calls.note("s", "bash", { command: "npm test" });
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push(read(), test());
    // The first test run is new (read starts over); from then on nothing is.
    expect(counts).toEqual([1, 1, 1, 2, 2, 3, 3, 4, 4, 5]);

    const fixing = new RepeatedCalls();
    const tests: number[] = [];
    for (let i = 0; i < 8; i++) {
      fixing.note("s", "edit", { filePath: "a.ts", oldString: `v${i}`, newString: `v${i + 1}` });
      tests.push(fixing.note("s", "bash", { command: "npm test" }));
    }
    expect(tests).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    // The same edit over and over is a loop, tests in between or not.
    const stuck = new RepeatedCalls();
    const edits: number[] = [];
    for (let i = 0; i < 4; i++) {
      edits.push(stuck.note("s", "edit", { filePath: "a.ts", oldString: "a", newString: "b" }));
      stuck.note("s", "bash", { command: "npm test" });
    }
    expect(edits).toEqual([1, 1, 2, 3]);
  });

  it("forget starts a session over", () => {
    const calls = new RepeatedCalls();
    calls.note("s", "read", { filePath: "a" });
    calls.forget("s");
    expect(calls.note("s", "read", { filePath: "a" })).toBe(1);
  });

  it("names the call by the argument that says what it does, short and without secrets", () => {
    expect(repeatedCallReason("bash", { command: "npm  test\n", description: "Run tests" }, 5)).toBe(
      "stopped: called bash `npm test` with the same arguments 5 times",
    );
    expect(describeCall("read", { filePath: "/repo/src/a.ts", offset: 10 })).toBe("read `/repo/src/a.ts`");
    expect(describeCall("todoread", {})).toBe("todoread `{}`");
    expect(describeCall("bash", { command: `echo ${"x".repeat(200)}` })).toMatch(/^bash `echo x{74}…`$/);
    expect(describeCall("bash", { command: "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789' x" })).not.toContain(
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    expect(stableJson({ b: [1, { d: 2, c: undefined, a: null }], a: "x" })).toBe('{"a":"x","b":[1,{"a":null,"d":2}]}');
  });
});

describe("SessionGuard: the repeated-tool-call stop", () => {
  let home: string | undefined;
  afterEach(() => {
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  function guardWith(limit?: number) {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-loop-"));
    const config = path.join(home, "config");
    if (limit !== undefined) {
      fs.mkdirSync(path.join(config, "otto"), { recursive: true });
      fs.writeFileSync(path.join(config, "otto", "otto.jsonc"), JSON.stringify({ limits: { repeated_tool_calls: limit } }));
    }
    const aborted: string[] = [];
    const dir = fs.mkdtempSync(path.join(home, "dir-"));
    const guard = new SessionGuard({
      directory: dir,
      env: { HOME: home, XDG_CONFIG_HOME: config, XDG_DATA_HOME: path.join(home, "data"), PATH: process.env.PATH },
      log: silentLogger,
      abort: async (id) => void aborted.push(id),
    });
    return { guard, aborted, dir };
  }

  it("refuses the call that reaches limits.repeated_tool_calls, aborts the session and keeps the reason until it is deleted", async () => {
    const { guard, aborted, dir } = guardWith(3);
    guard.track("ses_1");
    const read = () => guard.beforeTool({ tool: "read", sessionID: "ses_1" }, { args: { filePath: path.join(dir, "a.txt") } });
    await read();
    await read();
    expect(guard.stopReason("ses_1")).toBeUndefined();
    await expect(read()).rejects.toThrow(
      `Otto stopped: called read \`${path.join(dir, "a.txt")}\` with the same arguments 3 times, and ends this session`,
    );
    expect(aborted).toEqual(["ses_1"]);
    expect(guard.stopReason("ses_1")).toBe(`stopped: called read \`${path.join(dir, "a.txt")}\` with the same arguments 3 times`);
    // A later turn starts with clean counts.
    await read();
    expect(aborted).toHaveLength(1);
    guard.forget("ses_1");
    expect(guard.stopReason("ses_1")).toBeUndefined();
  });

  it("counts the command as the model wrote it, refused or not, at the default of 5; sessions that are not otto's are not counted", async () => {
    const { guard, aborted } = guardWith();
    guard.track("ses_1");
    const push = () => guard.beforeTool({ tool: "bash", sessionID: "ses_1" }, { args: { command: "git push origin HEAD" } });
    for (let i = 0; i < 4; i++) await expect(push()).rejects.toThrow(/Otto blocked this/);
    await expect(push()).rejects.toThrow("Otto stopped: called bash `git push origin HEAD` with the same arguments 5 times");
    expect(aborted).toEqual(["ses_1"]);
    for (let i = 0; i < 6; i++) await guard.beforeTool({ tool: "read", sessionID: "ses_user" }, { args: { filePath: "a" } });
    expect(aborted).toEqual(["ses_1"]);
  });
});
