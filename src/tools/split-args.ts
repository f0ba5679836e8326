/**
 * Splits the raw text of a slash command into words the way a person reads it: whitespace separates
 * words, and a quote groups only where a word (or an option's or a key's `=value`) starts with it, up to the
 * same quote followed by whitespace or the end. Anywhere else a quote is a letter, so natural text
 * ("fix the user's page", `don't`, 5'10") survives as typed. A quote that is never closed is a
 * letter too: the split never fails. A backslash is a backslash (Windows paths), except `\"` inside
 * a double-quoted group, which is a quote: `opencode run` passes an argument that holds a space as
 * `"…"` with its quotes escaped that way.
 *
 * A command line that is one quoted group holding several words (`-- "set spec.max_parallel_tasks 2"`,
 * as wrappers pass a whole command) is split again: no verb or option has spaces in its name.
 */
export function splitArgs(raw: string): string[] {
  const words = splitOnce(raw);
  const only = words[0];
  if (words.length === 1 && only !== undefined && /^["']/.test(raw.trim()) && /\s/.test(only.trim())) return splitOnce(only);
  return words;
}

function splitOnce(raw: string): string[] {
  const words: string[] = [];
  const text = raw.trim();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
    if (i >= text.length) break;
    let word = "";
    // A leading quote, or one right after `--name=` or `key=` (`set spec.verify='["npm test"]'`), opens a group.
    const eq = /^(--)?[\w.[\]-]+=(?=["'])/.exec(text.slice(i));
    if (eq) {
      word = eq[0];
      i += eq[0].length;
    }
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      const close = closingQuote(text, i + 1, quote);
      if (close !== undefined) {
        const inner = text.slice(i + 1, close);
        words.push(word + (quote === '"' ? inner.replace(/\\"/g, '"') : inner));
        i = close + 1;
        continue;
      }
    }
    const end = text.slice(i).search(/\s/);
    const stop = end < 0 ? text.length : i + end;
    words.push(word + text.slice(i, stop));
    i = stop;
  }
  return words;
}

/**
 * The index of `quote` closing a group that opened before `from`: followed by whitespace or the end,
 * and for `"` not escaped as `\"`.
 */
function closingQuote(text: string, from: number, quote: string): number | undefined {
  for (let j = text.indexOf(quote, from); j >= 0; j = text.indexOf(quote, j + 1)) {
    if (quote === '"' && text[j - 1] === "\\") continue;
    if (j + 1 >= text.length || /\s/.test(text[j + 1] ?? "")) return j;
  }
  return undefined;
}
