import { describe, expect, it } from "vitest";
import { inRepoQueue } from "../../../../src/pr/fix/repo-queue.ts";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("inRepoQueue", () => {
  it("runs fixes of one repository one after another, other repositories and instances in parallel, past failures", async () => {
    const owner = {};
    const events: string[] = [];
    const job =
      (name: string, fail = false) =>
      async () => {
        events.push(`${name} start`);
        await tick();
        events.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      inRepoQueue(owner, "https://github.com/o/r", job("a", true)),
      inRepoQueue(owner, "https://github.com/O/R.git", job("b")),
      inRepoQueue(owner, "https://github.com/o/other", job("c")),
      inRepoQueue({}, "https://github.com/o/r", job("d")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled", "fulfilled"]);
    expect(events.indexOf("b start")).toBeGreaterThan(events.indexOf("a end"));
    expect(events.indexOf("c start")).toBeLessThan(events.indexOf("a end"));
    expect(events.indexOf("d start")).toBeLessThan(events.indexOf("a end"));
  });
});
