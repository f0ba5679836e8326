/** A place in a text file. */
export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units like editors count them. */
  column: number;
}

/** The line and column of `offset` in `text` (an offset past the end counts as the end). */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}
