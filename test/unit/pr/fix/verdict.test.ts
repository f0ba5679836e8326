import { describe, expect, it } from "vitest";
import { fixSummary, isInfrastructure, parseCauseFiles, parseVerdict } from "../../../../src/pr/fix/index.ts";
import { taskFailedReason as taskFailure } from "../../../../src/session/index.ts";

const summary = (verdict: string): string =>
  `# Pipeline Failure Summary\n\n## Verdict\n${verdict}\n\n## unit\n- **Kind**: test\n- **Root error**: code error in infrastructure/db.ts`;

describe("parseVerdict", () => {
  it("reads the first word under ## Verdict", () => {
    expect(parseVerdict(summary("infrastructure: the npm registry answered 503"))).toBe("infrastructure");
    expect(parseVerdict(summary("code: auth.test.ts expects 401"))).toBe("code");
    expect(parseVerdict(summary("**Mixed**: lint is code, e2e timed out"))).toBe("mixed");
    expect(parseVerdict(summary("unclear: the log is truncated"))).toBe("unclear");
    expect(parseVerdict(summary("`infra`: runner out of disk"))).toBe("infrastructure");
  });

  it("skips blank lines, stops at the next heading, and accepts an inline Verdict: line", () => {
    expect(parseVerdict("## Verdict\n\n\ncode: x")).toBe("code");
    expect(parseVerdict("## Verdict\n## unit\ninfrastructure")).toBeUndefined();
    expect(parseVerdict("Verdict: infrastructure (network)")).toBe("infrastructure");
    expect(parseVerdict("no verdict here, the infrastructure is fine")).toBeUndefined();
  });

  it("re-runs only on a clear infrastructure verdict", () => {
    expect(isInfrastructure("infrastructure")).toBe(true);
    for (const v of ["code", "mixed", "unclear", undefined] as const) expect(isInfrastructure(v)).toBe(false);
  });
});

describe("parseCauseFiles", () => {
  it("reads the paths listed under ## Cause files, however the model quotes them, up to the next heading", () => {
    const text = `${summary("code: x")}\n\n## Cause files\n- \`src/math.js\`: add() subtracts\n- ./.github/workflows/ci.yml:14 calls a removed script\n* \`test/math.test.js:3\` asserts the old behaviour\n- \`src/math.js\` again\n\n## Notes\n- \`not/a/cause.js\``;
    expect(parseCauseFiles(text)).toEqual(["src/math.js", ".github/workflows/ci.yml", "test/math.test.js"]);
  });

  it("none listed, or no section: no file may weaken the checks", () => {
    expect(parseCauseFiles(`${summary("code: x")}\n\n## Cause files\n- (none)\n`)).toEqual([]);
    expect(parseCauseFiles(summary("code: x"))).toEqual([]);
  });
});

describe("fix session replies", () => {
  it("reads the last TASK_FAILED line and the Fix summary line", () => {
    expect(taskFailure("tried\nTASK_FAILED: first\nmore\nTASK_FAILED: infrastructure: registry down")).toBe(
      "infrastructure: registry down",
    );
    expect(taskFailure("all good\nFix summary: Return 401 on expired tokens")).toBeUndefined();
    expect(fixSummary("Changed src/auth.ts.\n\nFix summary: Return 401 on expired tokens")).toBe("Return 401 on expired tokens");
    expect(fixSummary("**Fix summary:** `Guard null user`")).toBe("Guard null user");
    expect(fixSummary("nothing")).toBeUndefined();
  });
});
