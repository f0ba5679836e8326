/** A guarded session's call refused: OpenCode shows the model the message, which says what to do instead. */
export class GuardBlocked extends Error {
  override name = "GuardBlocked";
}

/** The refusal of a call that would push, call a forge or touch git's control files, with the way out. */
export function blocked(reason: string): GuardBlocked {
  return new GuardBlocked(
    `Otto blocked this: ${reason}. Sessions otto runs cannot push, merge, call the forge, or change the checkout's git configuration, hooks or the environment otto set. ` +
      "Otto pushes for you after its checks pass: commit your work (if your task says to) and stop.",
  );
}
