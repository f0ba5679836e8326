import { describe, expect, it } from "vitest";
import { parseMentions } from "../../../src/crew/index.ts";

describe("parseMentions", () => {
  const names = ["alice", "bob-2"];

  it("finds agents, otto and human, in order, once each", () => {
    expect(parseMentions("@bob-2 ping @otto, then @alice and @bob-2 again; @human?", names)).toEqual({
      mentions: ["bob-2", "otto", "alice", "human"],
      unknown: [],
      remote: [],
    });
  });

  it("lists names nobody has, and ignores e-mail addresses and @ inside words", () => {
    expect(parseMentions("mail me@example.com or x@alice; @carol should know", names)).toEqual({
      mentions: [],
      unknown: ["carol"],
      remote: [],
    });
  });

  it("is case-insensitive and drops trailing hyphens and punctuation", () => {
    expect(parseMentions("(@Alice) @BOB-2- done.", names).mentions).toEqual(["alice", "bob-2"]);
  });

  it("tells addresses in other crews apart: @branch:agent (branches hold /) and @project:branch:agent", () => {
    const parsed = parseMentions("@feature/b:worker which port? cc @backend-api:main:otto. And @alice.", names);
    expect(parsed.mentions).toEqual(["alice"]);
    expect(parsed.unknown).toEqual([]);
    expect(parsed.remote).toEqual([
      { text: "feature/b:worker", branch: "feature/b", agent: "worker" },
      { text: "backend-api:main:otto", project: "backend-api", branch: "main", agent: "otto" },
    ]);
  });
});
