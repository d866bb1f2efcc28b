/**
 * The CLI's exit code, from the command's promise. Node leaves when nothing is left to wait on,
 * settled or not: a promise that nothing will ever settle (a bug) made `trawl crawl --stage-times`
 * exit 0 with no summary. Now such an end says so on stderr and exits 1.
 */
export function exitWhenDone(run: Promise<number>, proc: NodeJS.Process = process): void {
  const unfinished = () => {
    proc.stderr.write(
      'trawl: internal error: the command stopped before it finished (nothing was left running to finish it). ' +
        'What it stored so far is kept, and `trawl crawl --resume` goes on with a crawl. Please report this with the command line.\n',
    );
    proc.exitCode = 1;
  };
  proc.once('beforeExit', unfinished);
  run
    .catch((err: unknown) => {
      proc.stderr.write(`trawl: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      return 1;
    })
    .then((code) => {
      proc.removeListener('beforeExit', unfinished);
      proc.exitCode = code;
    });
}
