// What a crawl takes from its scoring profile: the frontier priority (focused or the general
// default), the query, and the CSS-selector fields (the profile's, then the command line's).
import type { CrawlSettings } from '../config/settings.js';
import type { FieldSpec } from '../extract/fields.js';
import { fieldSpecs } from '../extract/field-specs.js';
import { defaultPriority, type PriorityFn } from '../frontier/priority.js';
import { focusedPriority } from './focus.js';
import { loadProfile, type Profile } from './profile.js';

export interface CrawlScoring {
  profile: Profile;
  /** The query links are scored against: `--query`, else the profile's. */
  query: string;
  /** Best-first by each link's score (a query was given, or a profile other than `default`); else the general priority. */
  focused: boolean;
  fields: FieldSpec[];
}

/**
 * Loads and checks the crawl's profile and fields; throws a CrawlConfigError naming the file, the
 * field and what to write. `profile` is a profile already loaded (the cloud keeps it in the run).
 */
export function crawlScoring(settings: Pick<CrawlSettings, 'profile' | 'query' | 'field'>, profile?: Profile): CrawlScoring {
  const p = profile ?? loadProfile(settings.profile);
  return {
    profile: p,
    query: settings.query.trim() || p.query,
    focused: settings.query.trim() !== '' || settings.profile !== 'default',
    fields: fieldSpecs(p.fields, `profile ${p.source ?? p.name}`, settings.field),
  };
}

/** The frontier priority of a crawl's scoring. */
export function scoringPriority(s: CrawlScoring): PriorityFn {
  return s.focused ? focusedPriority(s.profile, s.query) : defaultPriority;
}
