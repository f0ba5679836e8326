import { describe, expect, it } from "vitest";
import { SessionWrites, writtenPaths } from "../../../src/session/index.ts";

describe("SessionWrites", () => {
  it("records a watched session's file-tool writes and shell windows; nothing of other sessions", () => {
    let now = 100;
    const writes = new SessionWrites(() => now);
    writes.watch("s1");
    writes.toolStarted({ tool: "write", sessionID: "s1", callID: "w" });
    writes.toolFinished({ tool: "write", sessionID: "s1", callID: "w", args: { filePath: "/repo/a.ts", content: "x" } });
    writes.toolStarted({ tool: "bash", sessionID: "s1", callID: "b" });
    now = 130;
    writes.toolFinished({ tool: "bash", sessionID: "s1", callID: "b", args: { command: "make" } });
    writes.toolStarted({ tool: "read", sessionID: "s1", callID: "r" });
    writes.toolFinished({ tool: "read", sessionID: "s1", callID: "r", args: { filePath: "/repo/read-only.ts" } });
    // An unwatched session: not recorded.
    writes.toolStarted({ tool: "bash", sessionID: "other", callID: "x" });
    writes.toolFinished({ tool: "write", sessionID: "other", callID: "y", args: { filePath: "/repo/b.ts" } });
    expect(writes.activity("s1")).toEqual({ files: ["/repo/a.ts"], shell: [{ start: 100, end: 130 }], active: { start: 100 }, calls: 3 });
    expect(writes.activity("other")).toBeUndefined();
  });

  it("a shell call that never reports its end is closed when the session's turn ends", () => {
    let now = 0;
    const writes = new SessionWrites(() => now);
    writes.watch("s1");
    now = 5;
    writes.toolStarted({ tool: "bash", sessionID: "s1", callID: "b" });
    expect(writes.activity("s1")?.shell).toEqual([{ start: 5 }]);
    now = 20;
    writes.end("s1");
    expect(writes.activity("s1")).toMatchObject({ shell: [{ start: 5, end: 20 }], active: { start: 0, end: 20 } });
    writes.release("s1");
    expect(writes.activity("s1")).toBeUndefined();
  });

  it("reads the paths of OpenCode's file tools: filePath, and apply_patch's file headers", () => {
    expect(writtenPaths({ filePath: "src/a.ts", content: "" })).toEqual(["src/a.ts"]);
    expect(writtenPaths({ filePath: "/abs/b.ts", edits: [] })).toEqual(["/abs/b.ts"]);
    expect(
      writtenPaths({
        patchText:
          "*** Begin Patch\n*** Add File: new.ts\n+x\n*** Update File: old.ts\n*** Move to: moved.ts\n@@\n-a\n+b\n*** Delete File: gone.ts\n*** End Patch",
      }),
    ).toEqual(["new.ts", "old.ts", "moved.ts", "gone.ts"]);
    expect(writtenPaths(undefined)).toEqual([]);
    expect(writtenPaths({ command: "ls" })).toEqual([]);
  });
});
