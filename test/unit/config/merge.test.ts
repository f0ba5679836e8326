import { describe, expect, it } from "vitest";
import { deepMerge } from "../../../src/config/index.ts";

describe("deepMerge", () => {
  it("merges objects at every level, later layers win", () => {
    const user = { models: { primary: "a/one", secondary: "a/two" }, spec: { max_parallel_tasks: 2 } };
    const repo = { models: { primary: "b/one" } };
    expect(deepMerge(user, repo)).toEqual({
      models: { primary: "b/one", secondary: "a/two" },
      spec: { max_parallel_tasks: 2 },
    });
  });

  it("replaces arrays instead of appending", () => {
    const user = { repos: [{ name: "a" }, { name: "b" }], spec: { verify: ["npm test"] } };
    const repo = { repos: [{ name: "c" }], spec: { verify: [] } };
    expect(deepMerge(user, repo)).toEqual({ repos: [{ name: "c" }], spec: { verify: [] } });
  });

  it("lets an object replace a scalar and a scalar replace an object", () => {
    expect(deepMerge({ p: "allow" }, { p: { bash: "ask" } })).toEqual({ p: { bash: "ask" } });
    expect(deepMerge({ p: { bash: "ask" } }, { p: "deny" })).toEqual({ p: "deny" });
  });

  it("ignores undefined values and missing layers, and does not modify its inputs", () => {
    const user = { spec: { verify: ["x"] } };
    const merged = deepMerge(user, undefined, { spec: { verify: undefined } });
    expect(merged).toEqual({ spec: { verify: ["x"] } });
    (merged.spec as { verify: string[] }).verify.push("y");
    expect(user.spec.verify).toEqual(["x"]);
  });
});
