/*
 * A tasks.md writer in its own process for task-store.test.ts: `node --import tsx store-writer.ts
 * <file> <writer> <updates>`. Prints `ready` once loaded, waits for a line on stdin (so all
 * writers start together), then sets task-<writer>'s `step` to 0 … updates-1 and prints, as JSON,
 * the lock waits and the total of every write's returned list (see totalSteps).
 */
import readline from "node:readline";
import { TaskStore } from "../../../src/execute/task-store.ts";
import { totalSteps } from "./store-steps.ts";

const [file = "", writer = "0", updates = "0"] = process.argv.slice(2);
const waits: number[] = [];
const totals: number[] = [];
const store = await TaskStore.open(file, "s", { onLockWait: (ms) => waits.push(ms) });
process.stdout.write("ready\n");
const input = readline.createInterface({ input: process.stdin });
await new Promise<void>((resolve) => input.once("line", () => resolve()));
input.close();
for (let k = 0; k < Number(updates); k++)
  totals.push(totalSteps(await store.set(`task-${writer}`, k % 2 ? "running" : "pending", { step: String(k) })));
process.stdout.write(`${JSON.stringify({ waits, totals })}\n`);
