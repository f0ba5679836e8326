import { describe, expect, it } from "vitest";
import { GuardBlocked, blocked } from "../../../src/guard/blocked.ts";
import { FILE_TOOLS, hostRunnerRefusal, hostRunnersOf } from "../../../src/guard/host-runners.ts";

/* The instance's lsp/formatter note and the refusal it gives a guarded session's tools (host-runners.ts). */
describe("host runners", () => {
  it("lsp and formatter are on when set to anything but false, null or absent", () => {
    expect(hostRunnersOf({})).toEqual([]);
    expect(hostRunnersOf({ lsp: false, formatter: null })).toEqual([]);
    expect(hostRunnersOf({ lsp: undefined, formatter: false })).toEqual([]);
    expect(hostRunnersOf({ lsp: true })).toEqual(["lsp"]);
    expect(hostRunnersOf({ formatter: {} })).toEqual(["formatter"]);
    expect(hostRunnersOf({ lsp: { ts: { command: ["x"] } }, formatter: 0 })).toEqual(["lsp", "formatter"]);
  });

  it("refuses read, lsp and the file tools while one is on, and lets every other tool and every tool run while none is", () => {
    for (const tool of ["read", "lsp", "edit", "write", "multiedit", "patch", "apply_patch"]) {
      expect(hostRunnerRefusal(tool, ["lsp"])).toBeInstanceOf(GuardBlocked);
      expect(hostRunnerRefusal(tool, [])).toBeUndefined();
    }
    for (const tool of ["bash", "grep", "glob", "list", "task", "webfetch"])
      expect(hostRunnerRefusal(tool, ["lsp", "formatter"])).toBeUndefined();
    expect([...FILE_TOOLS].sort()).toEqual(["apply_patch", "edit", "multiedit", "patch", "write"]);
  });

  it("names the tool, the settings in the singular or the plural, and how to turn them off", () => {
    expect(hostRunnerRefusal("edit", ["formatter"])?.message).toBe(
      `Otto blocked this: edit while OpenCode's "formatter" is on. OpenCode runs language servers and formatters outside otto's sandbox, ` +
        "on the file a tool touched, with programs from the project's tree (node_modules/.bin), which a session's shell can replace. " +
        `To run otto's sessions, set "formatter": false in the OpenCode configuration of this folder (opencode.json) or your global one, and restart OpenCode.`,
    );
    const both = hostRunnerRefusal("read", ["lsp", "formatter"])?.message ?? "";
    expect(both).toContain(`read while OpenCode's "lsp" and "formatter" are on.`);
    expect(both).toContain(`set "lsp": false and "formatter": false in`);
    expect(hostRunnerRefusal("read", ["lsp", "formatter"])?.name).toBe("GuardBlocked");
  });

  it("a guard refusal names what was refused, what sessions may not do and what to do instead", () => {
    const error = blocked("git push to origin");
    expect(error).toBeInstanceOf(GuardBlocked);
    expect(error.name).toBe("GuardBlocked");
    expect(error.message).toBe(
      "Otto blocked this: git push to origin. Sessions otto runs cannot push, merge, call the forge, or change the checkout's git configuration, hooks or the environment otto set. " +
        "Otto pushes for you after its checks pass: commit your work (if your task says to) and stop.",
    );
  });
});
