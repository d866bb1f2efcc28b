// Imported before every other module of the UI: some libraries (uPlot) build an
// Intl.NumberFormat from navigator.language when they load. Under a POSIX locale (LANG=C.UTF-8,
// containers, CI) Chromium reports a language such as `en-US@posix`, which Intl refuses with a
// RangeError, and the whole page stayed blank. The browser's language is replaced by the nearest
// tag Intl accepts (or en-US) before anything reads it.

/** The tag itself when Intl accepts it, else its part before `@`, `.` or `_` fixed up, else en-US. */
export function usableLanguage(language: string | undefined): string {
  const candidates = [language, language?.split(/[@.]/)[0]?.replace(/_/g, '-')];
  for (const tag of candidates) {
    if (!tag || tag === 'C' || tag === 'POSIX') continue;
    try {
      new Intl.NumberFormat(tag);
      return Intl.getCanonicalLocales(tag)[0] ?? 'en-US';
    } catch {
      // not a language tag: try the next form
    }
  }
  return 'en-US';
}

const nav = typeof navigator === 'undefined' ? undefined : navigator;
if (nav) {
  const language = usableLanguage(nav.language);
  if (language !== nav.language) {
    const languages = [language, ...(nav.languages ?? []).map(usableLanguage).filter((l) => l !== language)];
    Object.defineProperty(Navigator.prototype, 'language', { configurable: true, get: () => language });
    Object.defineProperty(Navigator.prototype, 'languages', { configurable: true, get: () => Object.freeze([...languages]) });
  }
}
