import { OttoError, formatError } from "../core/index.ts";
import { formatModel, type ChildOptions, type ChildSession, type SessionRunner } from "../session/index.ts";

/** What a check in code says about an extracted artifact: usable (maybe normalised), or its problems. */
export type Acceptance = { ok: true; artifact: string } | { ok: false; problems: string };

/** The conversation of one pass, for history files. */
export interface PassDialog {
  role: "generate" | "review" | "refine" | "run";
  model: string;
  sessionID: string;
  dialog: string;
}

export interface CheckedOptions {
  /** What is written, for messages, e.g. "tasks.md". */
  artifact: string;
  /** The artifact inside a reply, e.g. `extractDocument`. */
  extract: (text: string) => string;
  /** Checks the artifact in code; problems are sent back to the same session. Default: accept as is. */
  accept?: (artifact: string) => Acceptance;
  /** The follow-up prompt carrying the problems (required with `accept`). */
  repairPrompt?: (problems: string) => string;
  /** Follow-up prompts after the first answer (default 2: three answers in all). */
  maxRepairs?: number;
  system?: string;
  /** Receives the session's dialog before it is closed, whatever the outcome. */
  onDialog?: (dialog: PassDialog) => void;
}

export interface CheckedReply {
  artifact: string;
  sessionID: string;
  /** Answers it took, counting the first. */
  attempts: number;
}

/**
 * Runs `fn` in a fresh child session and closes it; with `onDialog`, the session's conversation is
 * read first (also when `fn` failed, which is when it is most useful).
 */
export async function inChild<T>(
  runner: SessionRunner,
  options: ChildOptions,
  role: PassDialog["role"],
  fn: (child: ChildSession) => Promise<T>,
  onDialog?: (dialog: PassDialog) => void,
): Promise<T> {
  const child = await runner.openChild(options);
  try {
    return await fn(child);
  } finally {
    if (onDialog) {
      const dialog = await child.dialog().catch((error: unknown) => `_(could not read the dialog: ${formatError(error)})_`);
      onDialog({ role, model: formatModel(options.model), sessionID: child.id, dialog });
    }
    await child.close();
  }
}

/**
 * One generator (or refiner) pass: prompt, extract the artifact, check it in code, and while it
 * has problems send them back to the SAME session (the model keeps its reasoning), up to
 * `maxRepairs` times. An artifact that still fails is never returned: `invalid_artifact`.
 */
export function generateChecked(
  runner: SessionRunner,
  options: ChildOptions,
  role: PassDialog["role"],
  prompt: string,
  opts: CheckedOptions,
): Promise<CheckedReply> {
  return inChild(
    runner,
    options,
    role,
    async (child) => {
      const answer = async (text: string): Promise<string> => {
        const reply = await child.prompt(text, { system: opts.system });
        const artifact = opts.extract(reply.text);
        if (!artifact.trim()) {
          throw new OttoError(
            "empty_artifact",
            `The model (${formatModel(options.model)}) returned no ${opts.artifact} (session ${child.id}).`,
            "Run the command again; if it keeps happening, try another model for this role in otto.jsonc.",
          );
        }
        return artifact;
      };
      const maxRepairs = opts.maxRepairs ?? 2;
      let verdict = check(opts, await answer(prompt));
      let attempts = 1;
      while (!verdict.ok && attempts <= maxRepairs && opts.repairPrompt) {
        verdict = check(opts, await answer(opts.repairPrompt(verdict.problems)));
        attempts++;
      }
      if (!verdict.ok) {
        throw new OttoError(
          "invalid_artifact",
          `The model (${formatModel(options.model)}, session ${child.id}) wrote an invalid ${opts.artifact} ${attempts} times; nothing was written. Last problems:\n${verdict.problems}`,
          "Run the command again; if it keeps failing, use a stronger primary model (models.primary in otto.jsonc).",
        );
      }
      return { artifact: verdict.artifact, sessionID: child.id, attempts };
    },
    opts.onDialog,
  );
}

function check(opts: CheckedOptions, artifact: string): Acceptance {
  return opts.accept ? opts.accept(artifact) : { ok: true, artifact };
}
