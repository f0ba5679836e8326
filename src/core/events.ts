import type { Event } from "@opencode-ai/sdk";

export type Listener = (event: Event) => void;

/**
 * OpenCode delivers every bus event to the plugin's `event` hook; this fans them out to the
 * parts of otto that wait on them (session timeouts, crew wake-ups). One bus per plugin instance.
 */
export class EventBus {
  #listeners = new Set<Listener>();

  on(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: Event): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not stop OpenCode's event delivery.
      }
    }
  }
}
