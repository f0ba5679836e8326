import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runChecks } from "../../../src/workspace/index.ts";

describe("runChecks (spec.verify)", () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "otto-verify-"));

  it("runs every command in the shell, in the repository, and captures the output", async () => {
    const results = await runChecks(["echo hello && pwd", "echo oops >&2; exit 3", "true"], { cwd, timeoutMs: 10_000, sandbox: "off" });
    expect(results.map((r) => [r.command, r.passed, r.exitCode])).toEqual([
      ["echo hello && pwd", true, 0],
      ["echo oops >&2; exit 3", false, 3],
      ["true", true, 0],
    ]);
    expect(results[0]?.output).toBe(`hello\n${fs.realpathSync(cwd)}`);
    expect(results[1]?.output).toBe("oops");
  });

  it("kills a command that runs too long, with everything it started", async () => {
    const marker = path.join(cwd, "child.pid");
    const [result] = await runChecks([`sleep 30 & echo $! > ${marker}; wait`], { cwd, timeoutMs: 500, sandbox: "off" });
    expect(result).toMatchObject({ passed: false, timedOut: true, exitCode: -1 });
    expect(result?.output).toContain("killed after");
    const pid = Number(fs.readFileSync(marker, "utf8"));
    await new Promise((r) => setTimeout(r, 100));
    // Gone, or a zombie nobody has reaped yet (PID 1 of a container may not reap).
    const state = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] : "gone";
    expect(["gone", "Z"]).toContain(state);
  });

  it("keeps the end of long output and redacts secrets", async () => {
    const [result] = await runChecks([`seq 1 20000; echo ghp_${"a".repeat(36)}; exit 1`], { cwd, timeoutMs: 10_000, sandbox: "off" });
    expect(result?.output).toMatch(/^… \(\d+ characters cut\)/);
    expect(result?.output).toContain("20000\n[REDACTED]");
  });
});
