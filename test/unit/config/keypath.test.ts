import { describe, expect, it } from "vitest";
import type { OttoError } from "../../../src/core/index.ts";
import { formatKeyPath, modelRoles, parseKeyPath, resolveConfig } from "../../../src/config/index.ts";

describe("key paths", () => {
  it("parses dots and indexes", () => {
    expect(parseKeyPath("spec.max_parallel_tasks")).toEqual(["spec", "max_parallel_tasks"]);
    expect(parseKeyPath("repos[0].name")).toEqual(["repos", 0, "name"]);
    expect(parseKeyPath("repos.1.primary_dir")).toEqual(["repos", 1, "primary_dir"]);
    expect(parseKeyPath("$schema")).toEqual(["$schema"]);
    expect(formatKeyPath(["repos", 0, "name"])).toBe("repos[0].name");
  });

  it("rejects malformed keys with an example", () => {
    for (const bad of ["", ".", "spec..x", "[0]", "spec.max parallel", "a[x]"]) {
      let caught: unknown;
      try {
        parseKeyPath(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught, bad).toMatchObject({ code: "config_key" });
      expect((caught as OttoError).fix).toContain("spec.max_parallel_tasks");
    }
  });
});

describe("modelRoles", () => {
  it("returns configured models and leaves the rest undefined (the session layer falls back)", () => {
    const user = { scope: "user" as const, file: "u", value: { models: { primary: "a/b", reviewers: ["x/1", "y/2"] } } };
    const { config } = resolveConfig({ layers: [user], env: {} });
    expect(modelRoles(config)).toEqual({ primary: "a/b", secondary: undefined, reviewers: ["x/1", "y/2"], fix: undefined });
  });
});
