/**
 * Lock waits of the PR store and the crew state under 16 concurrent writers × 50 updates in one
 * process (what the tasks.md rows of bench/execute.ts measure for tasks.md), with a check that no
 * update was lost. A wait is the time from asking for the write to running under the lock.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPrStore, type PrDocument } from "../src/pr/index.ts";
import { crewPaths } from "../src/crew/paths.ts";
import { transact } from "../src/crew/store.ts";
import { quantile } from "./stats.ts";

const WRITERS = 16;
const UPDATES = 50;

export interface LockWaits {
  p50: number;
  p99: number;
  max: number;
  /** Updates missing at the end (0: none lost). */
  lost: number;
}

const stats = (waits: readonly number[], lost: number): LockWaits => ({
  p50: Math.round(quantile(waits, 0.5)),
  p99: Math.round(quantile(waits, 0.99)),
  max: Math.round(Math.max(...waits)),
  lost,
});

async function inTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-bench-locks-"));
  try {
    return await run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** 16 writers × 50 updates of one PR document (each writer counts in its own key). */
export function prStoreLockWaits(): Promise<LockWaits> {
  return inTempDir(async (dir) => {
    const store = createPrStore(path.join(dir, "prs"));
    const doc: PrDocument = {
      key: "github-octo-app-1",
      data: {
        id: "1",
        provider: "github",
        repo: "octo/app",
        branch: "b",
        target: "main",
        status: "watching",
        url: "https://github.com/octo/app/pull/1",
        title: "t",
        created: new Date().toISOString(),
        checks: [],
        fix_attempts: 0,
        max_fix_attempts: 5,
        seen_comment_ids: [],
        unseen_comments: 0,
        comment_failures: {},
        workflow_done: [],
        errors: 0,
        meta: {},
      },
      sections: [],
      log: [],
    };
    await store.create(doc);
    const waits: number[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let k = 0; k < UPDATES; k++) {
          const asked = performance.now();
          await store.update(doc.key, (d) => {
            waits.push(performance.now() - asked);
            return {
              ...d,
              data: { ...d.data, comment_failures: { ...d.data.comment_failures, [`w${w}`]: (d.data.comment_failures[`w${w}`] ?? 0) + 1 } },
            };
          });
        }
      }),
    );
    const final = (await store.read(doc.key))?.data.comment_failures ?? {};
    const lost = Array.from({ length: WRITERS }, (_, w) => UPDATES - (final[`w${w}`] ?? 0)).reduce((a, b) => a + b, 0);
    return stats(waits, lost);
  });
}

/** 16 writers × 50 crew transactions, each posting one message to the stream. */
export function crewLockWaits(): Promise<LockWaits> {
  return inTempDir(async (dir) => {
    const paths = crewPaths(dir);
    fs.mkdirSync(paths.dir, { recursive: true });
    const waits: number[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let k = 0; k < UPDATES; k++) {
          const asked = performance.now();
          await transact(
            paths,
            () => new Date(),
            (tx) => {
              waits.push(performance.now() - asked);
              tx.post({ from: `w${w}`, kind: "say", text: `update ${k}`, mentions: [] });
            },
          );
        }
      }),
    );
    const lines = fs.readFileSync(paths.messages, "utf8").trim().split("\n");
    const seqs = new Set(lines.map((l) => (JSON.parse(l) as { seq: number }).seq));
    return stats(waits, WRITERS * UPDATES - seqs.size);
  });
}
