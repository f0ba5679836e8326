/**
 * Splits the raw text of a slash command into words the way a person reads it: whitespace separates
 * words, and a quote groups only where a word (or an option's `=value`) starts with it, up to the
 * same quote followed by whitespace or the end. Anywhere else a quote is a letter, so natural text
 * ("fix the user's page", `don't`, 5'10") survives as typed. A quote that is never closed is a
 * letter too: the split never fails. No escapes: a backslash is a backslash (Windows paths).
 */
export function splitArgs(raw: string): string[] {
  const words: string[] = [];
  const text = raw.trim();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
    if (i >= text.length) break;
    let word = "";
    // A leading quote, or one right after `--name=`, opens a group.
    const eq = /^--[\w-]+=/.exec(text.slice(i));
    if (eq) {
      word = eq[0];
      i += eq[0].length;
    }
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      const close = closingQuote(text, i + 1, quote);
      if (close !== undefined) {
        words.push(word + text.slice(i + 1, close));
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

/** The index of `quote` closing a group that opened before `from`: followed by whitespace or the end. */
function closingQuote(text: string, from: number, quote: string): number | undefined {
  for (let j = text.indexOf(quote, from); j >= 0; j = text.indexOf(quote, j + 1)) {
    if (j + 1 >= text.length || /\s/.test(text[j + 1] ?? "")) return j;
  }
  return undefined;
}
