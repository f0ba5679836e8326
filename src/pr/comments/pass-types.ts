import type { Env } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import type { Notify } from "../../notify/index.ts";
import type { ModelRef, SessionRunner } from "../../session/index.ts";
import type { Usage } from "../../cost/index.ts";
import type { PrBackend } from "../backend.ts";
import type { PrDocument } from "../store/document.ts";
import type { PrStore } from "../store/store.ts";
import type { PrComment, PrInfo } from "../types.ts";
import type { Decision } from "./decision.ts";
import type { SkipReason } from "./select-comments.ts";

/** What a comment pass runs with and what it reports (run-comments.ts), shared by its steps. */

export interface CommentFlowDeps {
  store: PrStore;
  sessions: SessionRunner;
  /** The primary model; asked for only when a comment is answered. */
  model: () => Promise<ModelRef>;
  /** The invoking session (commands); the watcher has none. */
  parentID?: string | undefined;
  /** Where the command runs: the PR's repository when no tracked repo matches it. */
  cwd: string;
  config: Config;
  secrets: readonly string[];
  env: Env;
  notify: Notify;
  now: () => Date;
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
  signal?: AbortSignal | undefined;
  progress?: (message: string) => void;
  /** A person's /otto-pr comments: proceeds on a head that changes OpenCode configuration (src/pr/context/config-hold.ts). */
  manual?: boolean;
}

export interface CommentPassInput {
  doc: PrDocument;
  pr: PrInfo;
  backend: PrBackend;
}

export interface PassItem {
  comment: PrComment;
  decision?: Decision | undefined;
  action: string;
  /** What answering it cost (absent for what no session worked on). */
  usage?: Usage | undefined;
}

export interface CommentPassReport {
  key: string;
  answered: PassItem[];
  recovered: PassItem[];
  failed: PassItem[];
  skipped: Array<{ comment: PrComment; reason: SkipReason }>;
  /** Who held the PR's working tree when this pass wanted it: nothing was answered, the next pass tries again. */
  busy?: string;
  /** Why nothing (more) was answered: the head changes OpenCode configuration and waits for a person (src/pr/context/config-hold.ts), or a daily cap / budget is reached. */
  held?: string;
  /** What the pass's model calls cost. */
  usage?: Usage;
}
