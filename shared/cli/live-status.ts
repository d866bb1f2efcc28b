/** What a live status line needs of a stream: its `write`, which the line takes over. */
export interface StatusStream {
  write: (chunk: string | Uint8Array, ...rest: never[]) => boolean;
}

const CLEAR = '\r\x1b[2K';

/**
 * The crawl's progress line on a terminal, kept on the last row: a line written meanwhile to
 * `line`'s stream or to any of `others` sharing the terminal (a log line on stderr, a
 * "cannot reach" line on stdout) clears it first and has it drawn again after, so nothing is
 * glued to it. Returns the function that sets the line ('' clears it) and one that gives the
 * streams their own `write` back.
 */
export function liveStatus(line: StatusStream, others: StatusStream[] = []): { set: (text: string) => void; restore: () => void } {
  let current = '';
  const draw = line.write.bind(line) as (s: string) => boolean;
  const originals = [line, ...others].map((stream) => {
    const own = stream.write.bind(stream) as (chunk: string | Uint8Array, ...rest: never[]) => boolean;
    stream.write = (chunk, ...rest) => {
      if (!current) return own(chunk, ...rest);
      draw(CLEAR);
      const ok = own(chunk, ...rest);
      draw(current);
      return ok;
    };
    return { stream, own };
  });
  return {
    set(text) {
      current = text;
      draw(`${CLEAR}${text}`);
    },
    restore() {
      if (current) draw(CLEAR);
      current = '';
      for (const { stream, own } of originals) stream.write = own;
    },
  };
}
