import { describe, expect, it } from "vitest";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import type { WatcherRecord } from "../../../../src/pr/watch/lock.ts";
import { renderStatus } from "../../../../src/pr/watch/render.ts";
import { samplePr } from "../sample-pr.ts";

const record: WatcherRecord = {
  pid: 4242,
  host: "box",
  token: "t",
  mode: "detached",
  started: "2026-02-06T10:00:00.000Z",
  heartbeat: "2026-02-06T10:30:00.000Z",
  interval_ms: 120_000,
  next_cycle: "2026-02-06T10:32:00.000Z",
  last_cycle: {
    started: "2026-02-06T10:29:58.000Z",
    finished: "2026-02-06T10:30:01.000Z",
    results: [{ key: "github-octo-app-42", outcome: "unchanged", status: "watching", summary: "1/1 passing" }],
  },
};
const doc = newDocument(samplePr(), "github-octo-app-42", 5, "2026-02-06T10:00:00.000Z");
const input = { record, alive: true, local: false, nextRun: undefined, docs: [doc], logFile: "/logs/otto-watch.log" };

describe("watch status", () => {
  it("shows the PID, the last and the next cycle, and each PR's state", () => {
    const text = renderStatus(input);
    expect(text.split("\n").slice(0, 4)).toEqual([
      "PR watcher: running in pid 4242 on box (detached, every 2m, since 2026-02-06T10:00:00.000Z).",
      "PID: 4242. Heartbeat: 2026-02-06T10:30:00.000Z. Next cycle: 2026-02-06T10:32:00.000Z.",
      "Log: /logs/otto-watch.log",
      "Last cycle: 2026-02-06T10:30:01.000Z (1 PRs).",
    ]);
    expect(text).toContain("| github-octo-app-42 | watching | unknown | never | 0 |");
  });

  it("takes the next cycle from the local schedule when this process runs the watcher", () => {
    const text = renderStatus({
      ...input,
      record: { ...record, mode: "foreground" },
      local: true,
      nextRun: new Date("2026-02-06T10:31:00.000Z"),
    });
    expect(text).toContain("PR watcher: running in this OpenCode process (foreground");
    expect(text).toContain("Next cycle: 2026-02-06T10:31:00.000Z.");
    expect(text).not.toContain("Log:");
  });

  it("keeps the last cycle of a stopped watcher, and says never before the first one", () => {
    const stopped = renderStatus({ ...input, record: { ...record, stopped: "2026-02-06T11:00:00.000Z" }, alive: false });
    expect(stopped).toContain("PR watcher: not running. Start it with /otto-pr watch start");
    expect(stopped).toContain("Last cycle: 2026-02-06T10:30:01.000Z (1 PRs).");
    expect(stopped).not.toContain("Next cycle");
    const fresh = renderStatus({ ...input, record: undefined, alive: false, docs: [] });
    expect(fresh).toContain("Last cycle: never.");
    expect(fresh).toContain("No PRs are tracked.");
  });
});
