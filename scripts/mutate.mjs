/* global process, console */
// `npm run mutate`: Stryker over the safety floor (stryker.modules.mjs), one module at a time, each
// against its own unit tests, each with its own incremental file under reports/stryker/ (a later
// run tests again only the mutants whose code or tests changed). Prints, and writes to
// reports/mutation/summary.md, one row per module: mutants, killed, survived, timeout, no coverage,
// score, wall time and CPU time (Stryker and its test processes: on a shared machine the wall time
// says more about the load than about the run). Each module's surviving mutants are in
// reports/mutation/<module>.log.
//   npm run mutate                          every safety module
//   npm run mutate -- src/core/redact.ts    the modules named
//   npm run mutate -- --force <module>      every mutant again, not only the changed ones
//   npm run mutate -- --concurrency 2       test processes per module (default: 2 on an idle machine of 2 cores or more, else 1)
//   npm run mutate:changed -- --list        which modules a run would mutate, nothing run
//   npm run mutate:changed [-- <base>]      the modules whose code or tests differ from <base> (origin/main, else main)
// Exits 1 when a module scores below the goal (85 %), 2 when Stryker itself failed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SAFETY_MODULES } from "../stryker.modules.mjs";

const GOAL = 85;
// --force: every mutant tested again. Stryker's incremental mode keeps the result of a mutant that
// survived until its code or the tests that covered it change; a static mutant (in a module-level
// constant: redact.ts's patterns) names no covering tests, so a new test that kills it goes unseen
// until a forced run.
const force = process.argv.includes("--force");
// --list: the modules a run would mutate, one a line, and nothing run.
const list = process.argv.includes("--list");
// --concurrency N: Stryker's test processes. Two cores shared with other work: one, unless the
// machine is idle when the run starts.
const at = process.argv.indexOf("--concurrency");
const concurrency =
  at < 0 ? (os.loadavg()[0] < 1 ? Math.min(2, os.availableParallelism()) : 1) : Number.parseInt(process.argv[at + 1] ?? "", 10);
if (!(concurrency >= 1)) {
  console.error("mutate: --concurrency needs a number of test processes, 1 or more: npm run mutate -- --concurrency 2");
  process.exit(2);
}
const args = process.argv
  .slice(2)
  .filter((a, i, all) => a !== "--force" && a !== "--list" && a !== "--concurrency" && all[i - 1] !== "--concurrency");

/** CPU seconds of this process's children that ended and were waited for (Linux: /proc/self/stat's cutime + cstime). */
const TICKS = Number.parseInt(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout ?? "", 10) || 100;
function childrenCpu() {
  try {
    // The fields after the command's name, which ends at the last ")": cutime and cstime are the 16th and 17th of the line.
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / TICKS;
  } catch {
    return Number.NaN;
  }
}

function git(...a) {
  const r = spawnSync("git", a, { encoding: "utf8" });
  return r.status === 0 ? r.stdout : undefined;
}

function changedModules(base) {
  const ref = base ?? (git("rev-parse", "--verify", "-q", "origin/main") ? "origin/main" : "main");
  const diff = git("diff", "--name-only", `${ref}...HEAD`);
  if (diff === undefined) {
    console.error(`mutate: no git ref '${ref}' to compare with. Name one: npm run mutate:changed -- <base>`);
    process.exit(2);
  }
  // Committed changes since the base, and what is changed but not yet committed.
  const changed = new Set([...diff.split("\n"), ...(git("diff", "--name-only", "HEAD") ?? "").split("\n")].filter(Boolean));
  return Object.keys(SAFETY_MODULES).filter((m) => changed.has(m) || SAFETY_MODULES[m].some((t) => changed.has(t)));
}

let modules;
if (args[0] === "--changed") modules = changedModules(args[1]);
else if (args.length > 0) {
  const unknown = args.filter((a) => !(a in SAFETY_MODULES));
  if (unknown.length > 0) {
    console.error(`mutate: not a safety module: ${unknown.join(", ")}. The list is in stryker.modules.mjs.`);
    process.exit(2);
  }
  modules = args;
} else modules = Object.keys(SAFETY_MODULES);

if (modules.length === 0) {
  console.log("mutate: no safety module or its tests changed; nothing to mutate.");
  process.exit(0);
}

if (list) {
  console.log(modules.join("\n"));
  process.exit(0);
}

const slug = (m) =>
  m
    .replace(/^src\//, "")
    .replace(/\.ts$/, "")
    .replace(/\//g, "-");
fs.mkdirSync("reports/mutation", { recursive: true });

/** Counts by Stryker's statuses from a mutation-testing report; score as Stryker defines it (timeouts count as killed). */
function tally(reportFile, module) {
  const report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
  const mutants = report.files?.[module]?.mutants ?? [];
  const n = (s) => mutants.filter((m) => m.status === s).length;
  const row = { mutants: mutants.length, killed: n("Killed"), survived: n("Survived"), timeout: n("Timeout"), noCoverage: n("NoCoverage") };
  const valid = row.killed + row.timeout + row.survived + row.noCoverage;
  row.score = valid === 0 ? 100 : (100 * (row.killed + row.timeout)) / valid;
  return row;
}

// Stryker runs in a process group of its own (setsid keeps the pid: spawnSync's child leads no
// group), so what a mutant left running (a launcher whose cleanup the mutant took out: pasta, a
// shell waiting on a FIFO) ends with the group once the module is done, not with the machine.
const SETSID = ["/usr/bin/setsid", "/bin/setsid"].find((file) => fs.existsSync(file));
function endGroup(pid) {
  if (!SETSID || !pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Nothing was left.
  }
}

const rows = [];
let failed = false;
console.log(`mutate: ${modules.length} module(s), concurrency ${concurrency}, load ${os.loadavg()[0].toFixed(1)}`);
for (const module of modules) {
  const started = Date.now();
  const cpuBefore = childrenCpu();
  const incremental = `reports/stryker/${slug(module)}.json`;
  console.log(`mutate: ${module} (tests: ${SAFETY_MODULES[module].join(", ")})`);
  const run = spawnSync(
    SETSID ?? process.execPath,
    [
      ...(SETSID ? [process.execPath] : []),
      path.join("node_modules", "@stryker-mutator", "core", "bin", "stryker.js"),
      "run",
      "--mutate",
      module,
      "--incrementalFile",
      incremental,
      "--reporters",
      "clear-text",
      "--concurrency",
      String(concurrency),
      ...(force ? ["--force"] : []),
      // A folder of its own: two runs at once (two modules by hand) do not clean up each other's.
      "--tempDirName",
      `reports/.stryker-tmp/${slug(module)}`,
    ],
    { encoding: "utf8", env: { ...process.env, OTTO_MUTATE_TESTS: SAFETY_MODULES[module].join(",") }, maxBuffer: 64 * 1024 * 1024 },
  );
  endGroup(run.pid);
  fs.writeFileSync(`reports/mutation/${slug(module)}.log`, `${run.stdout}\n${run.stderr}`);
  const minutes = (Date.now() - started) / 60_000;
  const cpu = childrenCpu() - cpuBefore;
  if (run.status !== 0 || !fs.existsSync(incremental)) {
    console.error(`mutate: Stryker failed on ${module} (exit ${run.status}); see reports/mutation/${slug(module)}.log`);
    failed = true;
    rows.push({ module, error: true, minutes, cpu });
    continue;
  }
  const row = { module, ...tally(incremental, module), minutes, cpu };
  console.log(
    `mutate: ${module}: ${row.score.toFixed(1)} % (${row.survived} survived, ${row.noCoverage} no coverage) in ${minutes.toFixed(1)} min, ${cpu.toFixed(0)} CPU s`,
  );
  rows.push(row);
}

const total = (key) => rows.reduce((sum, r) => sum + r[key], 0);
const lines = [
  "| module | mutants | killed | survived | timeout | no coverage | score | time | CPU |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...rows.map((r) =>
    r.error
      ? `| \`${r.module}\` | — | — | — | — | — | Stryker failed | ${r.minutes.toFixed(1)} min | ${r.cpu.toFixed(0)} s |`
      : `| \`${r.module}\` | ${r.mutants} | ${r.killed} | ${r.survived} | ${r.timeout} | ${r.noCoverage} | ${r.score.toFixed(1)} % | ${r.minutes.toFixed(1)} min | ${r.cpu.toFixed(0)} s |`,
  ),
  `| all (${rows.length}) | | | | | | | ${total("minutes").toFixed(1)} min | ${total("cpu").toFixed(0)} s |`,
];
fs.writeFileSync("reports/mutation/summary.md", `${lines.join("\n")}\n`);
console.log(lines.join("\n"));
if (failed) process.exit(2);
if (rows.some((r) => r.score < GOAL)) process.exit(1);
