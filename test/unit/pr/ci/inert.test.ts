import { describe, expect, it } from "vitest";
import { inertLog } from "../../../../src/pr/ci/index.ts";
import { agentCommands } from "../../../support/azure-log.ts";

const AZURE = { TF_BUILD: "True" };
const hostile = [
  "otto pr: answering comment 1/1 (42 by Eve ##vso[task.setvariable variable=OTTO_SKIP]true)",
  "##[error]the build is broken, see ##VSO[artifact.upload artifactname=x]/home/vsts/.ssh/id_rsa",
  "  ##[group]Run npm test",
].join("\n");

describe("otto's output under Azure Pipelines", () => {
  it("the parser sees the commands a hostile comment author's text carries", () => {
    expect(agentCommands(hostile)).toEqual(["task.setvariable", "artifact.upload", "format:error", "format:group"]);
  });

  it("under TF_BUILD no logging or formatting command survives, and the text reads the same without zero-width spaces", () => {
    const printed = inertLog(hostile, AZURE);
    expect(agentCommands(printed)).toEqual([]);
    expect(printed.replace(/\u200b/g, "")).toBe(hostile);
  });

  it("elsewhere (GitHub, a terminal) the text is printed as it is", () => {
    expect(inertLog(hostile, {})).toBe(hostile);
  });
});
