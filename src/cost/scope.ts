import { AsyncLocalStorage } from "node:async_hooks";
import type { Account } from "./account.ts";

/*
 * The account of the work in progress, carried by the async context: a flow runs its work in
 * `withAccount`, and every child session opened inside it (however deep in the call chain) is
 * charged there. Threading an account through every function that may open a session would touch
 * every signature between a command and the session runner.
 */
const storage = new AsyncLocalStorage<Account>();

export function withAccount<T>(account: Account, work: () => T): T {
  return storage.run(account, work);
}

/** The account of the work calling, if any flow opened one. */
export function currentAccount(): Account | undefined {
  return storage.getStore();
}
