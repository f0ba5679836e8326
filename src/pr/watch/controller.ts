import fs from "node:fs/promises";
import path from "node:path";
import { OttoError, formatError, xdgPaths } from "../../core/index.ts";
import { parseDuration } from "../../config/index.ts";
import { createPrContext, type PrContext, type PrRuntime } from "../context/context.ts";
import { assertSandbox } from "../../sandbox/index.ts";
import { watcherHooks } from "../comments/index.ts";
import { fixOnFailure, flakeProbeOnGreen } from "../fix/index.ts";
import { runCycle } from "./cycle.ts";
import { WATCH_ENV, WATCH_MODE_ENV, readPidFile, startDetached, stopProcess } from "./detach.ts";
import { hostKind } from "./host.ts";
import { processAlive } from "../../core/index.ts";
import { holderAlive, markStopped, readWatcherRecord, WatchMode, type LockDeps } from "./lock.ts";
import { renderCycle, renderStatus } from "./render.ts";
import { startNotes } from "./start-notes.ts";
import { cronFor, formatInterval, systemClock, type Clock } from "./schedule.ts";
import { installUnit } from "./install.ts";
import { serverAuthFile, watcherServerAuth, writeServerAuthFile } from "./server-auth.ts";
import { createWatcher, summarize, type Watcher } from "./watcher.ts";
import { createBackgroundFixes, handOverFix } from "./fixes.ts";
import { withCycleSpend } from "./cycle-spend.ts";
import { watcherSpend } from "./watcher-spend.ts";
import { learnDaily } from "../../rules/learn/index.ts";

/** PRs polled at once in a cycle: enough to hide latency, few enough for secondary rate limits. */
const CONCURRENCY = 4;
/** How long `start --detach` waits for the background watcher to take the lock. */
const DETACH_TIMEOUT_MS = 45_000;

export interface ControllerDeps {
  clock: Clock;
  pid: number;
  isAlive: (pid: number) => boolean;
  argv: readonly string[];
  /** The OpenCode binary: process.execPath inside OpenCode. */
  opencode: string;
}

export interface WatchController {
  start(options: { detach: boolean }): Promise<string>;
  stop(): Promise<string>;
  status(): Promise<string>;
  once(): Promise<string>;
  install(options: { enable: boolean }): Promise<string>;
  /** Starts the watcher when OTTO_WATCH=1 (a detached serve or the systemd unit); never throws. */
  autostart(): Promise<void>;
}

export function createWatchController(runtime: PrRuntime, deps: ControllerDeps): WatchController {
  let watcher: Watcher | undefined;
  const fixes = createBackgroundFixes((level, message, extra) => runtime.log.log(level, message, extra));
  // Stopping must work even when otto.jsonc is broken: no config needed to find the lock.
  const dataDir = (): string => xdgPaths(runtime.env).ottoDataDir;
  const lockDeps = (dir: string): LockDeps => ({
    file: path.join(dir, "watcher.json"),
    now: () => deps.clock.now(),
    isAlive: deps.isAlive,
  });

  // Nobody watches the watcher's work: under "auto" it needs a sandbox too (docs/security.md).
  const assertBoxed = (ctx: PrContext, flow = "The PR watcher"): void =>
    assertSandbox(ctx.loaded.config.sandbox, runtime.env, undefined, flow);

  async function ensureWatcher(): Promise<{ watcher: Watcher; intervalMs: number }> {
    const ctx = await createPrContext(runtime);
    assertBoxed(ctx);
    const intervalMs = cronFor(parseDuration(ctx.loaded.config.server.poll_interval)).everyMs;
    watcher ??= createWatcher({
      lock: lockDeps(ctx.dataDir),
      clock: deps.clock,
      pid: deps.pid,
      intervalMs,
      cycle: async ({ force }) => {
        const fresh = await createPrContext(runtime);
        const report = await runCycle({
          ...fresh,
          secrets: fresh.loaded.secrets,
          now: () => deps.clock.now(),
          log: (level, message, extra) => runtime.log.log(level, message, extra),
          intervalMs,
          fullPollMs: parseDuration(fresh.loaded.config.pr.full_poll_interval),
          concurrency: CONCURRENCY,
          force,
          ...watcherHooks(runtime, fresh, {
            now: () => deps.clock.now(),
            log: (level, message, extra) => runtime.log.log(level, message, extra),
          }),
          onGreen: flakeProbeOnGreen(runtime, fresh),
          // Beside the cycle, one per PR: a long fix never holds up the polling of the others.
          onFailure: handOverFix(
            fixes,
            (failure, signal) => fixOnFailure(runtime, fresh, { signal })(failure),
            (level, message) => runtime.log.log(level, message),
          ),
        });
        // Once a day, when the repository it runs in has new signals (rules.learn_daily); never throws.
        await learnDaily(runtime, fresh, deps.clock.now());
        await runtime.sessions.meter?.flush();
        return withCycleSpend(report, runtime.env);
      },
      log: (level, message, extra) => runtime.log.log(level, message, extra),
      background: fixes,
    });
    return { watcher, intervalMs };
  }

  async function startHere(mode: Exclude<WatchMode, "once">): Promise<string> {
    const { watcher: w, intervalMs } = await ensureWatcher();
    if (w.running) return `The PR watcher already runs in this OpenCode process (pid ${deps.pid}).`;
    const { replaced } = await w.start(mode);
    return [
      `PR watcher running in this OpenCode process (pid ${deps.pid}), every ${formatInterval(intervalMs)}; first cycle now.`,
      replaced ? `Took over the lock of a stale watcher (pid ${replaced}).` : "",
      "It stops when this OpenCode exits; /otto-pr watch start --detach keeps one running in the background.",
    ]
      .filter(Boolean)
      .join("\n");
  }

  return {
    async start({ detach }) {
      const ctx = await createPrContext(runtime);
      assertBoxed(ctx);
      if (!detach) {
        if (hostKind(deps.argv) === "run") {
          throw new OttoError(
            "watch_headless",
            "`opencode run` exits as soon as this command ends, so a watcher started here would stop with it.",
            "Run /otto-pr watch start --detach (a background opencode serve), /otto-pr watch once (one cycle now), or start it inside the OpenCode TUI.",
          );
        }
        return withNotes(await startHere("foreground"), await startNotes(ctx));
      }
      const lock = lockDeps(ctx.dataDir);
      const current = await readWatcherRecord(lock.file);
      if (holderAlive(current, lock))
        throw new OttoError(
          "watcher_running",
          `A PR watcher is already running (pid ${current?.pid}, ${current?.mode}).`,
          "See /otto-pr watch status; stop it with /otto-pr watch stop.",
        );
      const logFile = path.join(ctx.loaded.config.server.log_dir, "otto-watch.log");
      const port = ctx.loaded.config.server.port;
      // The server always has a password: the configured one, or one otto generates and stores 0600.
      const auth = watcherServerAuth({ opencode: ctx.loaded.config.opencode, dataDir: ctx.dataDir });
      runtime.secrets?.add([auth.password]);
      const { pid } = await startDetached({
        opencode: deps.opencode,
        directory: runtime.directory,
        env: { ...runtime.env, OPENCODE_SERVER_USERNAME: auth.username, OPENCODE_SERVER_PASSWORD: auth.password },
        port,
        logFile,
        pidFile: path.join(ctx.dataDir, "watcher.pid"),
        lock,
        timeoutMs: DETACH_TIMEOUT_MS,
        sleep: deps.clock.sleep,
      });
      const password = auth.generated
        ? `its password is in ${serverAuthFile(ctx.dataDir)} (user ${auth.username})`
        : "with your OPENCODE_SERVER_PASSWORD";
      return withNotes(
        `Started the PR watcher in the background: opencode serve (pid ${pid}) on 127.0.0.1:${port}, ${password}, polling every ${ctx.loaded.config.server.poll_interval}.\nLog: ${logFile}\nStop it with /otto-pr watch stop.`,
        await startNotes(ctx),
      );
    },

    async stop() {
      if (watcher?.running) {
        await watcher.stop();
        return `Stopped the PR watcher of this OpenCode process (pid ${deps.pid}).`;
      }
      const dir = dataDir();
      const lock = lockDeps(dir);
      const record = await readWatcherRecord(lock.file);
      const pidFile = path.join(dir, "watcher.pid");
      if (!record || !holderAlive(record, lock)) {
        await fs.rm(pidFile, { force: true });
        return "No PR watcher is running.";
      }
      if (record.mode === "service")
        return `The PR watcher runs as a systemd service (pid ${record.pid}). Stop it with: systemctl --user stop otto-watch`;
      if (record.mode !== "detached" || readPidFile(pidFile) !== record.pid) {
        throw new OttoError(
          "watch_elsewhere",
          `The PR watcher runs inside another OpenCode process (pid ${record.pid}, ${record.mode}).`,
          "Stop it there with /otto-pr watch stop, or end that OpenCode.",
        );
      }
      await stopProcess(record.pid, deps.isAlive, deps.clock.sleep);
      await markStopped(lock, record.pid);
      await fs.rm(pidFile, { force: true });
      return `Stopped the background PR watcher (pid ${record.pid}).`;
    },

    async status() {
      const ctx = await createPrContext(runtime);
      const lock = lockDeps(ctx.dataDir);
      const record = await readWatcherRecord(lock.file);
      return renderStatus({
        record,
        alive: holderAlive(record, lock),
        local: watcher?.running === true,
        nextRun: watcher?.nextRun(),
        docs: (await ctx.store.list()).docs,
        logFile: path.join(ctx.loaded.config.server.log_dir, "otto-watch.log"),
        spend: await watcherSpend(runtime.env, ctx.loaded.config.limits, deps.clock.now()),
      });
    },

    async once() {
      const { watcher: w } = await ensureWatcher();
      const report = await w.runOnce();
      // Its fixes have finished by now: summed again, they are in the rows.
      await runtime.sessions.meter?.flush();
      return renderCycle(summarize(await withCycleSpend(report, runtime.env)));
    },

    async install({ enable }) {
      const ctx = await createPrContext(runtime);
      assertBoxed(ctx, "The PR watcher's systemd unit");
      // The unit reads the server's credentials from a 0600 file (EnvironmentFile=), never from the unit itself.
      const auth = watcherServerAuth({ opencode: ctx.loaded.config.opencode, dataDir: ctx.dataDir });
      runtime.secrets?.add([auth.password]);
      const environmentFile = serverAuthFile(ctx.dataDir);
      if (!auth.generated) writeServerAuthFile(environmentFile, auth);
      return installUnit({
        opencode: deps.opencode,
        directory: runtime.directory,
        port: ctx.loaded.config.server.port,
        env: runtime.env,
        environmentFile,
        enable,
      });
    },

    async autostart() {
      if (runtime.env[WATCH_ENV] !== "1") return;
      const parsed = WatchMode.safeParse(runtime.env[WATCH_MODE_ENV] ?? "detached");
      const mode = parsed.success && parsed.data !== "once" ? parsed.data : "detached";
      try {
        runtime.log.log("info", await startHere(mode));
      } catch (error) {
        runtime.log.log("error", "otto could not start the PR watcher", { error: formatError(error) });
      }
    },
  };
}

const controllers = new WeakMap<object, WatchController>();

/**
 * The controller of a plugin instance, created on first use. Keyed by the runtime object, so
 * instances never share a watcher (the lock keeps them from running two).
 */
export function watchControllerFor(runtime: PrRuntime, deps: Partial<ControllerDeps> = {}): WatchController {
  let controller = controllers.get(runtime);
  if (!controller) {
    controller = createWatchController(runtime, {
      clock: deps.clock ?? systemClock,
      pid: deps.pid ?? process.pid,
      isAlive: deps.isAlive ?? processAlive,
      argv: deps.argv ?? process.argv,
      opencode: deps.opencode ?? process.execPath,
    });
    controllers.set(runtime, controller);
  }
  return controller;
}

const withNotes = (text: string, notes: string[]): string => [text, ...notes].join("\n");
