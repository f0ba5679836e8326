import { describe, expect, it } from "vitest";
import { OttoError } from "../../../src/core/index.ts";
import { postMarker, postOnce, stripPostMarkers, uncertainWrite, withPostMarker } from "../../../src/pr/post-once.ts";
import { postTrial } from "../../support/post-trial.ts";

/** A forge in memory: each step of `script` decides what one write does. */
function fakeForge(script: Array<"ok" | "lost" | "applied" | "rejected">, options: { findFails?: boolean } = {}) {
  const bodies: string[] = [];
  const finds: string[] = [];
  let writes = 0;
  return {
    bodies,
    finds,
    get writes() {
      return writes;
    },
    options: {
      id: "0000-1111",
      sleep: async () => undefined,
      settleMs: 0,
      write: async (marker: string) => {
        const step = script[writes++] ?? "ok";
        if (step === "rejected") throw new OttoError("pr_forbidden", "GitHub refused (403)");
        if (step !== "lost") bodies.push(withPostMarker("hello", marker));
        if (step !== "ok") throw uncertainWrite("POST comments", "no answer within 100 ms");
      },
      find: async (marker: string) => {
        finds.push(marker);
        if (options.findFails) throw new Error("GET failed");
        return bodies.some((b) => b.includes(marker));
      },
    },
  };
}

describe("postOnce", () => {
  it("writes once when the forge answers", async () => {
    const forge = fakeForge(["ok"]);
    expect(await postOnce(forge.options)).toBe("posted");
    expect(forge.writes).toBe(1);
    expect(forge.finds).toEqual([]);
    expect(forge.bodies).toEqual(["hello\n\n<!-- otto:post id=0000-1111 -->"]);
  });

  it("after a timeout that applied the write, finds its marker and does not write again", async () => {
    const forge = fakeForge(["applied"]);
    expect(await postOnce(forge.options)).toBe("found");
    expect(forge.writes).toBe(1);
    expect(forge.finds).toEqual([postMarker("0000-1111")]);
    expect(forge.bodies).toHaveLength(1);
  });

  it("after a timeout that lost the write, looks, then writes again once with the same marker", async () => {
    const forge = fakeForge(["lost", "ok"]);
    expect(await postOnce(forge.options)).toBe("posted");
    expect(forge.writes).toBe(2);
    expect(forge.bodies).toEqual(["hello\n\n<!-- otto:post id=0000-1111 -->"]);
  });

  it("a second uncertain write is looked for too, and never followed by a third", async () => {
    const applied = fakeForge(["lost", "applied"]);
    expect(await postOnce(applied.options)).toBe("found");
    const lost = fakeForge(["lost", "lost", "ok"]);
    await expect(postOnce(lost.options)).rejects.toThrow(/may or may not have applied it/);
    expect(lost.writes).toBe(2);
    expect(lost.finds).toHaveLength(2);
    expect(lost.bodies).toEqual([]);
  });

  it("a rejection (4xx) is not looked for nor written again", async () => {
    const forge = fakeForge(["rejected"]);
    await expect(postOnce(forge.options)).rejects.toThrow("GitHub refused (403)");
    expect(forge.writes).toBe(1);
    expect(forge.finds).toEqual([]);
  });

  it("when the look itself fails, otto cannot tell and does not write again", async () => {
    const forge = fakeForge(["lost"], { findFails: true });
    await expect(postOnce(forge.options)).rejects.toThrow(/no answer within 100 ms/);
    expect(forge.writes).toBe(1);
  });

  it("strips post markers for showing a thread", () => {
    expect(stripPostMarkers(withPostMarker("Fixed.", postMarker("ab-12")))).toBe("Fixed.");
  });
});

describe("posting under injected faults (real backends, fake forges)", () => {
  // Timeouts before the write and after it (applied, answer lost), and 5xx likewise.
  const kinds = ["timeout_after", "timeout", "500_after", "500"] as const;

  it.each(["github", "ado"] as const)(
    "%s: no post twice, none lost, every POST fault met",
    async (forge) => {
      const result = await postTrial({ forge, posts: 24, rate: 0.5, kinds: [...kinds], seed: 3 });
      for (const kind of kinds) expect(result.faults[kind] ?? 0, `${kind} injected`).toBeGreaterThan(0);
      expect(result.duplicates).toBe(0);
      expect(result.lost).toBe(0);
      // Applied-then-failed writes are found, not re-sent: fewer writes than posts plus faults.
      expect(result.writes).toBeLessThan(result.posts + Object.values(result.faults).reduce((a, b) => a + b, 0));
    },
    30_000,
  );
});
