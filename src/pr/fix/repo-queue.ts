import { serialQueue, type SerialQueue } from "../../core/index.ts";

/*
 * Fixes of PRs in the same repository run one after another within a plugin instance: with the
 * `branch` strategy they share one working tree (the PR's branch is checked out in it), and two
 * sessions editing, committing and pushing there at once would mix their changes. Keyed by the
 * instance's session runner, so plugin instances never share a queue. The work lock
 * (src/workspace/work-lock.ts) guards the tree across processes and against the comment flow and the
 * review loop, but a busy tree defers a fix to the next cycle; this queue lets the watcher's
 * parallel fixes of one instance wait for each other instead.
 */

const queues = new WeakMap<object, SerialQueue>();

export function inRepoQueue<T>(owner: object, repository: string, run: () => Promise<T>): Promise<T> {
  let queue = queues.get(owner);
  if (!queue) {
    queue = serialQueue();
    queues.set(owner, queue);
  }
  return queue(repository.toLowerCase().replace(/\.git$|\/+$/g, ""), run);
}
