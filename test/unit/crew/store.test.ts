import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { crewPaths, type CrewPaths } from "../../../src/crew/index.ts";
import { parseStream, readCrew, readStream, transact } from "../../../src/crew/store.ts";

let root: string;
let paths: CrewPaths;
const now = () => new Date("2026-01-01T10:00:00Z");

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "otto-crew-store-"));
  paths = crewPaths(root);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("the crew's files", () => {
  it("starts empty, numbers messages from the stream and writes both files in one transaction", async () => {
    expect(await readCrew(paths)).toEqual({ version: 1, cursors: {}, agents: [] });
    const first = await transact(paths, now, ({ crew, post }) => {
      crew.cursors.otto = 0;
      return post({ from: "alice", kind: "say", text: "hi", mentions: [] });
    });
    expect(first.result).toMatchObject({ seq: 1, at: "2026-01-01T10:00:00.000Z" });
    const second = await transact(paths, now, ({ post, stream }) => {
      expect(stream.map((m) => m.seq)).toEqual([1]);
      return [
        post({ from: "bob", kind: "ask", text: "q", mentions: ["otto"] }),
        post({ from: "bob", kind: "say", text: "r", mentions: [] }),
      ];
    });
    expect(second.result.map((m) => m.seq)).toEqual([2, 3]);
    expect((await readStream(paths)).map((m) => m.text)).toEqual(["hi", "q", "r"]);
    expect((await readCrew(paths)).cursors).toEqual({ otto: 0 });
    expect(fs.statSync(paths.crew).mode & 0o777).toBe(0o600);
  });

  it("keeps sequence numbers unique when transactions race (the lock)", async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        transact(paths, now, ({ post }) => post({ from: `a${i}`, kind: "say", text: String(i), mentions: [] })),
      ),
    );
    expect((await readStream(paths)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("skips a torn last line and does not glue the next message to it", async () => {
    await transact(paths, now, ({ post }) => post({ from: "a", kind: "say", text: "one", mentions: [] }));
    fs.appendFileSync(paths.messages, '{"seq":2,"at":"x","fro');
    await transact(paths, now, ({ post }) => post({ from: "a", kind: "say", text: "two", mentions: [] }));
    expect((await readStream(paths)).map((m) => [m.seq, m.text])).toEqual([
      [1, "one"],
      [2, "two"],
    ]);
    expect(parseStream("not json\n\n{}\n")).toEqual([]);
  });

  it("nothing is written when the change throws", async () => {
    await expect(
      transact(paths, now, ({ post }) => (post({ from: "a", kind: "say", text: "x", mentions: [] }), Promise.reject(new Error("no")))),
    ).rejects.toThrow("no");
    expect(fs.existsSync(paths.messages)).toBe(false);
  });

  it("reports a broken crew.json with the file and what to do", async () => {
    fs.mkdirSync(paths.dir, { recursive: true });
    fs.writeFileSync(paths.crew, '{"version": 2}');
    const error: unknown = await readCrew(paths).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("crew_state");
    expect(isOttoError(error) && error.fix).toContain(paths.crew);
  });
});
