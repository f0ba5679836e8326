/**
 * One writer process of the cross-process lock bench (bench/execute.ts): waits for the start time,
 * sets its task's status `count` times through a TaskStore, prints the lock waits as JSON.
 * `node --import tsx bench/lock-writer.ts <tasks.md> <task-id> <count> <start-ms>`
 */
import { TaskStore } from "../src/execute/index.ts";

const [file = "", id = "", count = "50", start = "0"] = process.argv.slice(2);
const waits: number[] = [];
const store = await TaskStore.open(file, "bench", { onLockWait: (ms) => waits.push(ms) });
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(start) - Date.now())));
for (let k = 0; k < Number(count); k++) await store.set(id, k % 2 ? "running" : "pending");
process.stdout.write(JSON.stringify(waits));
