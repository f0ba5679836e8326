import { describe, expect, it } from "vitest";
import type { Logger } from "../../../src/core/log.ts";
import { ControlWatches, settleWith, type SettleDeps } from "../../../src/guard/control-settle.ts";
import type { ControlWatch } from "../../../src/workspace/index.ts";

/*
 * The look after a sandboxed command (control-settle.ts): which look is settled when, and how a
 * settle is logged, with the workspace's git replaced by a recording fake. The real quarantine is
 * exercised by session-settle.test.ts (real bubblewrap).
 */
const look = (root: string): ControlWatch => ({ root, absent: [] });

function recording() {
  const settled: Array<[string, boolean]> = [];
  const watches = new ControlWatches(async (watch, pathsOnly) => {
    settled.push([watch.root, pathsOnly]);
    return `undid ${watch.root}`;
  });
  return { watches, settled };
}

describe("ControlWatches", () => {
  it("settles a call's own look after it, fully, once; an unknown call settles nothing", async () => {
    const { watches, settled } = recording();
    watches.noted({ sessionID: "ses_1", callID: "call_1" }, look("/tree"));
    expect(await watches.afterCall("call_2")).toBeUndefined();
    expect(settled).toEqual([]);
    expect(await watches.afterCall("call_1")).toBe("undid /tree");
    expect(await watches.afterCall("call_1")).toBeUndefined();
    expect(settled).toEqual([["/tree", false]]);
  });

  it("at the session's end, its first look at each root is settled, paths only, once; pending calls are dropped", async () => {
    const { watches, settled } = recording();
    watches.noted({ sessionID: "ses_1", callID: "c1" }, look("/tree"));
    watches.noted({ sessionID: "ses_1", callID: "c2" }, look("/tree"));
    watches.noted({ sessionID: "ses_1" }, look("/other"));
    watches.noted({ sessionID: "ses_2", callID: "c3" }, look("/third"));
    await watches.sessionEnded("ses_1");
    expect(settled).toEqual([
      ["/tree", true],
      ["/other", true],
    ]);
    // Its calls' after-hooks, come late, settle nothing more; another session's call still does.
    expect(await watches.afterCall("c1")).toBeUndefined();
    expect(await watches.afterCall("c2")).toBeUndefined();
    expect(await watches.afterCall("c3")).toBe("undid /third");
    await watches.sessionEnded("ses_1");
    expect(settled).toEqual([
      ["/tree", true],
      ["/other", true],
      ["/third", false],
    ]);
    await watches.sessionEnded("ses_2");
    expect(settled.at(-1)).toEqual(["/third", true]);
    await watches.sessionEnded("ses_none");
    expect(settled).toHaveLength(4);
  });

  it("says whether a session has a look at a root yet (its first look walks the whole tree), per session and root", () => {
    const { watches } = recording();
    expect(watches.seen("ses_1", "/tree")).toBe(false);
    watches.noted({ sessionID: "ses_1", callID: "c1" }, look("/tree"));
    watches.noted({ sessionID: "ses_1", callID: "c2" }, look("/other"));
    expect(watches.seen("ses_1", "/tree")).toBe(true);
    expect(watches.seen("ses_1", "/other")).toBe(true);
    expect(watches.seen("ses_1", "/third")).toBe(false);
    expect(watches.seen("ses_2", "/tree")).toBe(false);
  });

  it("a call without an id is looked at only at the session's end", async () => {
    const { watches, settled } = recording();
    watches.noted({ sessionID: "ses_1" }, look("/tree"));
    expect(await watches.afterCall("undefined")).toBeUndefined();
    expect(settled).toEqual([]);
    await watches.sessionEnded("ses_1");
    expect(settled).toEqual([["/tree", true]]);
  });
});

describe("settleWith", () => {
  function deps(line: string | undefined, fail?: unknown) {
    const logged: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const log: Logger = { log: (level, message, extra) => logged.push([level, message, extra]) };
    const calls: unknown[] = [];
    const load = (async () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a thrown non-Error is what is tested
      if (fail !== undefined) throw fail;
      return {
        settleControls: async (watch: ControlWatch, env: unknown, git: (args: string[], options: object) => unknown, options: unknown) => {
          calls.push(["settle", watch.root, env, options]);
          calls.push(["git", await git(["status"], { cwd: "/tree", env: { OTHER: "1" } })]);
          return { refs: [], gitlinks: [] };
        },
        settledLine: (settled: unknown) => {
          calls.push(["line", settled]);
          return line;
        },
        runGit: async (args: string[], options: object) => ({ args, options }),
      };
    }) as unknown as SettleDeps["load"];
    return { settle: settleWith({ env: { HOME: "/home/u" }, log, load }), logged, calls };
  }

  it("settles with the guard's environment, passes pathsOnly, logs the line under the tree's root and returns it", async () => {
    const { settle, logged, calls } = deps("moved .opencode out");
    expect(await settle(look("/tree"), true)).toBe("moved .opencode out");
    expect(calls).toEqual([
      ["settle", "/tree", { HOME: "/home/u" }, { pathsOnly: true }],
      ["git", { args: ["status"], options: { cwd: "/tree", env: { HOME: "/home/u" } } }],
      ["line", { refs: [], gitlinks: [] }],
    ]);
    expect(logged).toEqual([["warn", "otto guard: in /tree, moved .opencode out", undefined]]);
    await settle(look("/tree"), false);
    expect(calls[3]).toEqual(["settle", "/tree", { HOME: "/home/u" }, { pathsOnly: false }]);
  });

  it("nothing undone: nothing logged", async () => {
    const { settle, logged } = deps(undefined);
    expect(await settle(look("/tree"), false)).toBeUndefined();
    expect(logged).toEqual([]);
  });

  it("never throws: a failure is one warning with its message, and no line", async () => {
    const failed = deps("x", new Error("git is gone"));
    expect(await failed.settle(look("/tree"), false)).toBeUndefined();
    expect(failed.logged).toEqual([["warn", "otto guard: could not look at a sandboxed command's tree again", { error: "git is gone" }]]);
    const odd = deps("x", "a string thrown");
    await odd.settle(look("/tree"), false);
    expect(odd.logged[0]?.[2]).toEqual({ error: "a string thrown" });
  });
});
