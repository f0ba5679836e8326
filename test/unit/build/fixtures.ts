import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { OttoError } from "../../../src/core/index.ts";
import type { Builder } from "../../../src/build/index.ts";
import { removeAfterTest } from "../../support/git.ts";

/** A tasks.md with `n` tasks, the first `done` of them completed. */
export function tasksMd(n: number, done = 0): string {
  const tasks = Array.from({ length: n }, (_, i) => {
    const id = `task-00${i + 1}`;
    return `## Task ${i + 1}: Step ${i + 1}\n- **id**: ${id}\n- **status**: ${i < done ? "completed" : "pending"}\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: Step ${i + 1}.\n- **files**: ["src/${id}.txt"]`;
  });
  return `# Tasks\n\n${tasks.join("\n\n")}\n`;
}

/** A temp directory, removed after the test (or, made in a hook, after the file). */
export function tempRepoDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-build-"));
  removeAfterTest(dir);
  return dir;
}

/** Marks the first pending task of an otto tasks.md completed. */
export function completeNext(file: string): void {
  const text = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, text.replace("- **status**: pending", "- **status**: completed"));
}

/** A step returns this to have its turn aborted by someone else. */
export const ABORT = Symbol("abort");
export type Step = (turn: number, prompt: string) => string | typeof ABORT | Promise<string | typeof ABORT>;

/** A builder whose turns are scripted: each step may edit files and returns the reply text. */
export class FakeBuilder implements Builder {
  prompts: string[] = [];
  extraUserMessages = 0;
  aborted = 0;
  #abortTurn?: () => void;

  constructor(
    private readonly step: Step,
    readonly id = "ses_builder",
  ) {}

  async prompt(text: string): Promise<{ text: string }> {
    this.prompts.push(text);
    const aborted = new Promise<typeof ABORT>((resolve) => {
      this.#abortTurn = () => resolve(ABORT);
    });
    const result = await Promise.race([Promise.resolve(this.step(this.prompts.length, text)), aborted]);
    if (result === ABORT) throw new OttoError("session_aborted", "aborted");
    return { text: result };
  }

  async abort(): Promise<void> {
    this.aborted++;
    this.#abortTurn?.();
  }

  async userMessages(): Promise<number> {
    return this.prompts.length + this.extraUserMessages;
  }

  async close(): Promise<void> {}
}
