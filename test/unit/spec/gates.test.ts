import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/errors.ts";
import { checkGate, type Artifact, type Stage } from "../../../src/spec/index.ts";

const has = (...artifacts: Artifact[]): Set<Artifact> => new Set(artifacts);
const ALL = has("requirements", "research", "design", "tasks");

function gateError(stage: Stage, present: Set<Artifact>): { message: string; fix?: string } | undefined {
  try {
    checkGate(stage, present, "add-auth");
    return undefined;
  } catch (error) {
    if (!isOttoError(error)) throw error;
    expect(error.code).toBe("gate_blocked");
    return { message: error.message, fix: error.fix };
  }
}

describe("checkGate", () => {
  it.each<[Stage, Artifact[]]>([
    ["requirements", ["requirements"]],
    ["research", ["requirements"]],
    ["design", ["requirements", "research"]],
    ["task-generate", ["requirements", "research", "design"]],
    ["execute", ["requirements", "research", "design", "tasks"]],
  ])("%s passes with %j", (stage, artifacts) => {
    expect(gateError(stage, has(...artifacts))).toBeUndefined();
  });

  it("names the missing file and the command that writes it", () => {
    expect(gateError("design", has("requirements"))).toEqual({
      message: "Cannot run design — research.md has not been written yet.",
      fix: "/otto-spec research --spec add-auth",
    });
    expect(gateError("task-generate", has("requirements", "research"))).toEqual({
      message: "Cannot run task generate — design.md has not been written yet.",
      fix: "/otto-spec design --spec add-auth",
    });
    expect(gateError("execute", has("requirements", "research", "design"))).toEqual({
      message: "Cannot run execute — tasks.md has not been written yet.",
      fix: "/otto-spec task generate --spec add-auth",
    });
  });

  it("reports the earliest missing artifact in pipeline order", () => {
    expect(gateError("execute", has("research", "design", "tasks"))?.message).toBe(
      "Cannot run execute — requirements.md has not been written yet.",
    );
    // Several stages to go (execute right after add): all of them named at once, and the unattended chain.
    const afterAdd = gateError("execute", has("requirements"));
    expect(afterAdd?.message).toBe("Cannot run execute — research.md, design.md, tasks.md have not been written yet.");
    expect(afterAdd?.fix).toBe(
      '/otto-spec research --spec add-auth, then design, then task generate (for a new prompt, /otto-build plan "<prompt>" runs the whole chain unattended).',
    );
    expect(gateError("research", has())?.fix).toBe('/otto-spec add "<prompt>" (or write .otto/specs/add-auth/requirements.md)');
    expect(gateError("requirements", has("questions"))?.message).toBe(
      "Cannot run requirements — requirements.md has not been written yet.",
    );
  });

  it("never gates on questions, and exempts run", () => {
    expect(gateError("execute", ALL)).toBeUndefined();
    expect(gateError("run", has())).toBeUndefined();
    expect(gateError("questions", has())).toBeUndefined();
  });
});
