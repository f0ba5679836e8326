import fs from "node:fs/promises";
import { userConfigFile } from "../config/index.ts";
import { formatError } from "../core/index.ts";
import type { Crew } from "./context.ts";
import type { CrewFile } from "./schema.ts";
import { readCrew, readStream, transact } from "./store.ts";
import { dispatch } from "./wake.ts";

/*
 * Messages from other crews arrive in this crew's stream, written by another OpenCode process. The
 * process that owns the crew notices them with a cheap poll (one stat of the stream a second, and
 * one of the user's config; no read and no model call while nothing arrives) and applies the wake-up policy as for a local
 * post. Delivery is recorded by the readers' cursors, so a process that starts (or takes over after
 * one was killed) re-dispatches what is still unread and nothing is lost or sent twice.
 */

const POLL_MS = 1000;

interface Watched {
  crew: Crew;
  size: number;
  seen: number;
  /** This process delivers for the crew (until then crew.json is read on every look). */
  owned: boolean;
  /** Looks at the crew again (service.ts), when the user's config changed: a project tracked since has a new identity. */
  refresh?: () => Promise<unknown>;
}

/** Makes this process the crew's deliverer unless another live one is (called inside a transaction). */
export function claimOwner(state: CrewFile, crew: Pick<Crew, "pid" | "isAlive">): boolean {
  const owner = state.owner?.pid;
  if (owner === crew.pid) return true;
  if (owner !== undefined && crew.isAlive(owner)) return false;
  state.owner = { pid: crew.pid };
  return true;
}

const REGISTRY = Symbol.for("opencode-otto.crew.inbox");

interface Inbox {
  crews: Map<string, Watched>;
  /** The user's config file as last seen (mtime and size), which says which repos are tracked. */
  config?: string;
  timer?: ReturnType<typeof setInterval>;
  running: boolean;
}

/** Per process, like the prompt gates: every plugin instance of the process shares one poll. */
function inbox(): Inbox {
  const holder = globalThis as { [REGISTRY]?: Inbox };
  holder[REGISTRY] ??= { crews: new Map(), running: false };
  return holder[REGISTRY];
}

/** The crews this process serves: their agents' events are looked up here (service.ts). */
export function watchedCrews(): Crew[] {
  return [...inbox().crews.values()].map((w) => w.crew);
}

/**
 * Starts delivering this crew's messages from other crews (idempotent). The newest look at a crew
 * replaces the one kept (its identity may have changed: tracked since, moved to a new name).
 */
export function watchInbox(crew: Crew, refresh?: Watched["refresh"]): void {
  const box = inbox();
  const id = crew.paths.id;
  for (const [dir, watched] of box.crews) {
    const other = watched.crew.paths.id;
    if (dir !== crew.paths.dir && id && other?.home === id.home && other.branch === id.branch) box.crews.delete(dir);
  }
  const watched = box.crews.get(crew.paths.dir);
  if (watched) Object.assign(watched, { crew, refresh });
  else {
    box.crews.set(crew.paths.dir, { crew, size: -1, seen: 0, owned: false, refresh });
    void pollOnce().catch(() => undefined);
  }
  if (!box.timer) {
    box.timer = setInterval(() => void pollOnce().catch(() => undefined), POLL_MS);
    box.timer.unref?.();
  }
}

/** One look at every watched crew; exported for tests. */
export async function pollOnce(): Promise<void> {
  const box = inbox();
  if (box.running) return;
  box.running = true;
  try {
    // One more stat a second: /otto-repo add (in any process) changes the identity of crews here.
    const first = box.crews.values().next().value;
    const config = first && (await fs.stat(userConfigFile(first.crew.env)).catch(() => undefined));
    const stamp = config ? `${config.mtimeMs}:${config.size}` : "none";
    if (box.config !== undefined && box.config !== stamp) {
      for (const watched of [...box.crews.values()]) await watched.refresh?.().catch(() => undefined);
    }
    box.config = stamp;
    for (const watched of box.crews.values()) {
      try {
        await check(watched);
      } catch (error) {
        watched.crew.log.log("warn", "crew: could not read messages from other crews", { error: formatError(error) });
      }
    }
  } finally {
    box.running = false;
  }
}

async function check(watched: Watched): Promise<void> {
  const { crew } = watched;
  const size = (await fs.stat(crew.paths.messages).catch(() => undefined))?.size ?? -1;
  if (size === watched.size && watched.owned) return;
  let state = await readCrew(crew.paths);
  // No crew here yet, or another live OpenCode serves it (two processes in one worktree): it delivers.
  if (!state.id) return;
  if (state.owner?.pid !== crew.pid) {
    if (state.owner !== undefined && crew.isAlive(state.owner.pid)) return;
    const committed = await transact(crew.paths, crew.now, ({ crew: current }) => claimOwner(current, crew), crew.secrets?.() ?? []);
    if (!committed.result) return;
    state = committed.crew;
  }
  watched.owned = true;
  watched.size = size;
  const fresh = (await readStream(crew.paths)).filter((m) => m.via && m.seq > watched.seen);
  if (!fresh.length) return;
  watched.seen = fresh.at(-1)?.seq ?? watched.seen;
  dispatch(crew, fresh, state);
}

/** Stops the poll (tests). */
export function stopInbox(): void {
  const box = inbox();
  if (box.timer) clearInterval(box.timer);
  box.timer = undefined;
  box.config = undefined;
  box.crews.clear();
}
