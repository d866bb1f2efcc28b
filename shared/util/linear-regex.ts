// A user's regular expression (`--deny /…/`, a field's `match`) matched by RE2's automaton
// (re2js): time linear in the input, whatever the pattern. V8's backtracking engine takes
// exponential time on patterns such as /(a+)+$/, and these patterns come from requests and files
// that the server or the crawl runs on its own threads.
import { RE2JS } from 're2js';

/** A compiled pattern: `test` anywhere in the input, `matches` each match's first group (or the whole match). */
export interface LinearRegex {
  test(input: string): boolean;
  /** The first match's first capture group, or the whole match when the pattern has no group or it did not take part. */
  first(input: string): string | undefined;
  /** The same for every match, left to right. */
  all(input: string): string[];
}

export interface LinearRegexOptions {
  ignoreCase?: boolean;
}

/**
 * Compiles a JavaScript-syntax pattern for linear-time matching. Throws a SyntaxError naming what
 * RE2 cannot do (backreferences, lookahead) or what is malformed.
 *
 * @example linearRegex('/product/(\\d+)').first('/product/42') // '42'
 */
export function linearRegex(source: string, options: LinearRegexOptions = {}): LinearRegex {
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new SyntaxError(`${why} (patterns are matched in linear time: backreferences and lookahead are not supported)`);
  }
  const groupOf = (m: ReturnType<RE2JS['matcher']>) => (re.groupCount() > 0 ? (m.group(1) ?? m.group(0)) : m.group(0)) ?? '';
  return {
    test: (input) => re.test(input),
    first(input) {
      const m = re.matcher(input);
      return m.find() ? groupOf(m) : undefined;
    },
    all(input) {
      const out: string[] = [];
      const m = re.matcher(input);
      while (m.find()) out.push(groupOf(m));
      return out;
    },
  };
}
