import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appendHarvest } from "../../../src/execute/index.ts";
import { parseQuestions } from "../../../src/spec/index.ts";

describe("appendHarvest", () => {
  it("appends new questions after the existing ones, skips duplicates, keeps the file's text", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-harvest-"));
    const file = path.join(dir, "questions.md");
    const before =
      "# Questions\n\n<!-- answer below -->\n\n## Q1: Limit\n- **source**: requirements (2026-02-01)\n- **status**: unanswered\n- **question**: What is the limit?\n";
    fs.writeFileSync(file, before);
    const added = await appendHarvest(
      file,
      {
        questions: [
          { title: "Limit again", question: "What is the limit?", context: "", source: "task-001" },
          { title: "Header", question: "Which header carries the key?", context: "task-002 assumed X-Api-Key.", source: "task-002" },
          { title: "Spanning", question: "Is the store shared between instances?", context: "", source: "" },
        ],
      },
      2,
      "2026-02-06",
    );
    expect(added).toEqual([2, 3]);
    const text = fs.readFileSync(file, "utf8");
    expect(text.startsWith(before.trimEnd())).toBe(true);
    const list = parseQuestions(text).questions.questions;
    expect(list.map((q) => [q.number, q.source, q.status])).toEqual([
      [1, "requirements (2026-02-01)", "unanswered"],
      [2, "task-002 (2026-02-06)", "unanswered"],
      [3, "phase-2 (2026-02-06)", "unanswered"],
    ]);
    expect(list[1]?.extra.context).toBe("task-002 assumed X-Api-Key.");
    expect(await appendHarvest(file, { questions: [] }, 2, "2026-02-06")).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
