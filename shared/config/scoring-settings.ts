import { z } from 'zod';
import { bool, int, list, setting } from './setting.js';

/** The settings of link scoring, focused crawling, the selection, field extraction (`shared/scoring/`) and the search and social targets a crawl starts from (`shared/targets/`), spread into the settings table. */
export const SCORING_SETTINGS = {
  profile: setting({
    // Checked where it is loaded, before the data directory is touched (a shipped name, or a file that exists and parses).
    schema: z.string().min(1),
    expects: 'a shipped profile (default, fire-protection) or the path of a profile JSON file',
    default: 'default',
    flag: 'profile',
    env: 'TRAWL_PROFILE',
    help: 'scoring profile (shipped name or ./file.json): link priority, selection rules and fields; anything but default makes the crawl focused',
    type: 'string',
  }),
  query: setting({
    schema: z.string().max(1000),
    expects: 'words, at most 1000 characters',
    default: '',
    flag: 'query',
    env: 'TRAWL_QUERY',
    help: "focused crawl: the frontier goes best-first by each link's score against these words (default: the profile's query)",
    type: 'string',
  }),
  preview: setting({
    ...bool,
    default: false,
    flag: 'preview',
    env: 'TRAWL_PREVIEW',
    help: "focused crawl: fetch the <head> of each page's best new links on its host (politely, 5 s each) and score their title and description too",
    type: 'boolean',
  }),
  previewsPerPage: setting({
    ...int(1, 30),
    default: 5,
    flag: 'previews-per-page',
    env: 'TRAWL_PREVIEWS_PER_PAGE',
    help: 'with --preview: links previewed per page, at most',
    type: 'string',
  }),
  field: setting({
    ...list,
    expects: 'name=selector or name:type=selector (a.pdf@href for an attribute, [] at the end for a list)',
    default: [] as string[],
    flag: 'field',
    env: 'TRAWL_FIELDS',
    help: "extract a field with a CSS selector, e.g. 'price:number=.price' or 'pdfs:url=a.pdf@href[]' (repeatable; adds to the profile's fields)",
    type: 'list',
  }),
  select: setting({
    ...bool,
    default: false,
    flag: 'select',
    env: 'TRAWL_SELECT',
    help: "end the crawl with each seed's selection (the pages that say what the site does), stored and written to reports/",
    type: 'boolean',
  }),
  selectCap: setting({
    ...int(1, 50),
    default: 4,
    flag: 'select-cap',
    env: 'TRAWL_SELECT_CAP',
    help: 'pages in a selection, the homepage included',
    type: 'string',
  }),
  targetLimit: setting({
    ...int(0, 500),
    default: 0,
    flag: 'target-limit',
    env: 'TRAWL_TARGET_LIMIT',
    help: 'results or posts taken from each search or social target a crawl starts from (0: the backend default: search 10, Reddit 25, others 20)',
    type: 'string',
  }),
} as const;
