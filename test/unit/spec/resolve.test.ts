import { describe, expect, it } from "vitest";
import { isOttoError, type OttoError } from "../../../src/core/errors.ts";
import { resolveSpec, type SpecCandidate } from "../../../src/spec/index.ts";

function thrown(fn: () => unknown): OttoError {
  try {
    fn();
  } catch (error) {
    if (isOttoError(error)) return error;
    throw error;
  }
  throw new Error("expected an OttoError");
}

const specs: SpecCandidate[] = [
  { slug: "add-jwt-authentication", artifacts: { requirements: true, research: true, design: true, tasks: false, questions: false } },
  { slug: "rate-limiting", artifacts: { requirements: true, research: false } },
  { slug: "rate-alerts", artifacts: { requirements: true, research: true } },
];

describe("resolveSpec", () => {
  it("fails with the add command when there are no specs", () => {
    const error = thrown(() => resolveSpec([]));
    expect([error.code, error.message, error.fix]).toEqual([
      "spec_not_found",
      "No specs found in .otto/specs.",
      'Run /otto-build plan "<prompt>" (requirements → research → design → tasks, unattended), or /otto-spec add "<prompt>" to go stage by stage',
    ]);
    expect(thrown(() => resolveSpec([], "x")).code).toBe("spec_not_found");
  });

  it("uses the only spec when no flag is given", () => {
    expect(resolveSpec(["add-auth"])).toBe("add-auth");
    expect(resolveSpec([specs[1]!])).toBe("rate-limiting");
  });

  it("lists every candidate with its artifact count when several exist and no flag is given", () => {
    const error = thrown(() => resolveSpec(specs));
    expect(error.code).toBe("spec_ambiguous");
    expect(error.message).toBe(
      [
        "Multiple specs found, specify one with --spec:",
        "  add-jwt-authentication  (3 artifacts)",
        "  rate-limiting           (1 artifact)",
        "  rate-alerts             (2 artifacts)",
      ].join("\n"),
    );
    expect(error.fix).toBe("Pass --spec <slug> (a unique prefix is enough), e.g. --spec add-jwt-authentication");
    expect(thrown(() => resolveSpec(["a", "b"])).message).toBe("Multiple specs found, specify one with --spec:\n  a\n  b");
  });

  it("prefers an exact match, then a unique prefix", () => {
    expect(resolveSpec(specs, "rate-limiting")).toBe("rate-limiting");
    expect(resolveSpec(["rate", "rate-limiting"], "rate")).toBe("rate");
    expect(resolveSpec(specs, "add")).toBe("add-jwt-authentication");
    expect(resolveSpec(specs, "rate-l")).toBe("rate-limiting");
  });

  it("lists the matches of an ambiguous prefix", () => {
    const error = thrown(() => resolveSpec(specs, "rate"));
    expect(error.code).toBe("spec_ambiguous");
    expect(error.message).toBe("'rate' matches 2 specs:\n  rate-limiting  (1 artifact)\n  rate-alerts    (2 artifacts)");
    expect(error.fix).toBe("Pass more of the slug, e.g. --spec rate-limiting");
  });

  it("lists all specs when nothing matches", () => {
    const error = thrown(() => resolveSpec(specs, "billing"));
    expect(error.code).toBe("spec_not_found");
    expect(error.message).toContain("No spec matches 'billing'. The specs are:\n  add-jwt-authentication  (3 artifacts)");
    expect(error.fix).toBe("Pass one of these with --spec, or run /otto-spec list");
  });

  it.each(["../rate-limiting", "rate/..", "/etc", ".otto", "Rate"])("rejects the unsafe flag %j before matching", (flag) => {
    expect(thrown(() => resolveSpec(specs, flag)).code).toBe("invalid_slug");
  });
});
