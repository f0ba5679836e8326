/**
 * Benchmarks of the tasks.md parser, as a markdown section for docs/benchmarks.md: parseTasks and
 * updateTaskStatus on generated files of about 13 KB (50 tasks) and 130 KB (500 tasks). The
 * execute engine runs both under the tasks.md lock on every status change, so their time is lock
 * hold time. `benchTasksFile()` is what bench/run.ts calls; run alone with
 * `node --import tsx bench/tasks-file.ts [--write]`.
 */
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import { median } from "./stats.ts";
import { parseTasks, serializeTasks, updateTaskStatus, type Task } from "../src/spec/index.ts";

const RUNS = Number(process.env.OTTO_BENCH_PARSE_RUNS ?? 101);

const id = (n: number): string => `task-${String(n).padStart(3, "0")}`;

/** A tasks.md as the tasks stage writes it: ~260 bytes a task, dependencies on earlier groups. */
export function generatedTasksMd(count: number): string {
  const tasks: Task[] = Array.from({ length: count }, (_, i) => ({
    id: id(i + 1),
    title: `Implement part ${i + 1}`,
    number: i + 1,
    status: "pending",
    parallel_group: 1 + Math.floor(i / 10),
    depends_on: i >= 10 ? [id(i - 9), id(i - 8)] : [],
    description: `Change module ${i + 1}, with tests.\n- keep its API\n- update \`docs/m${i + 1}.md\``,
    files: [`src/mod${i + 1}.ts`, `test/mod${i + 1}.test.ts`],
    extra: {},
  }));
  return serializeTasks({ preamble: "# Tasks", tasks });
}

function time(fn: () => unknown): number[] {
  return Array.from({ length: RUNS }, () => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  });
}

export async function benchTasksFile(log: (line: string) => void = () => undefined): Promise<string> {
  const rows = [50, 500].map((count) => {
    const text = generatedTasksMd(count);
    const parse = time(() => parseTasks(text));
    // The execute engine's write: a task in the middle, with an extra field (`step`, `last_error`).
    let k = 0;
    const update = time(() => updateTaskStatus(text, id(Math.ceil(count / 2)), k % 2 ? "running" : "completed", { step: String(k++) }));
    log(
      `${count} tasks, ${(text.length / 1024).toFixed(0)} KB: parse ${median(parse).toFixed(2)} ms, update ${median(update).toFixed(2)} ms (medians)`,
    );
    return { count, kb: text.length / 1024, parse, update };
  });
  const ms = (x: number): string => `${x.toFixed(2)} ms`;
  return [
    "## tasks.md parsing",
    "",
    `Generated files as the tasks stage writes them (canonical fields, multi-line descriptions, dependencies on earlier groups). Medians of ${RUNS} calls in one Node ${process.version} process (the first calls, before the JIT has compiled the parser, take a few times longer). \`updateTaskStatus\` sets a task's status and one extra field, as the execute engine does on every change (under the tasks.md lock, followed by a \`parseTasks\`).`,
    "",
    "| file | `parseTasks` | `updateTaskStatus` |",
    "|---|---|---|",
    ...rows.map((r) => `| ${r.count} tasks, ${r.kb.toFixed(0)} KB | ${ms(median(r.parse))} | ${ms(median(r.update))} |`),
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## tasks.md parsing", section);
}

runStandalone(import.meta.url, benchTasksFile, writeSection);
