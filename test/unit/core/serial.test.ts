import { describe, expect, it } from "vitest";
import { serialQueue } from "../../../src/core/index.ts";

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("serialQueue", () => {
  it("runs one job at a time per key, in arrival order, and keys apart in parallel", async () => {
    const queue = serialQueue();
    const log: string[] = [];
    const first = deferred();
    const a1 = queue("a", async () => {
      log.push("a1 start");
      await first.promise;
      log.push("a1 end");
    });
    const a2 = queue("a", async () => void log.push("a2"));
    const b1 = queue("b", async () => void log.push("b1"));
    await b1;
    expect(log).toEqual(["a1 start", "b1"]);
    first.resolve();
    await Promise.all([a1, a2]);
    expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("a failed job rejects its own caller only; the next one still runs", async () => {
    const queue = serialQueue();
    const failed = queue("k", () => Promise.reject(new Error("boom")));
    const next = queue("k", async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ran");
  });
});
