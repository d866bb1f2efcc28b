import { z } from 'zod';
import { list, setting } from './setting.js';
import { CHANGE_KINDS, type ChangeKind } from './change-kinds.js';

/**
 * The monitor of a crawl: which of its changes are worth telling (events, webhooks, the crawl's
 * own output). Every change is still kept and listed by `trawl changes`; these settings only
 * choose what is sent. With none set, every change but `unchanged` is told.
 */
export const CHANGE_SETTINGS = {
  monitorPath: setting({
    ...list,
    expects: 'URL path prefixes starting with /',
    schema: z.array(z.string().regex(/^\//, 'a path prefix starts with /')),
    default: [] as string[],
    flag: 'monitor-path',
    env: 'TRAWL_MONITOR_PATHS',
    help: 'tell changes only of URLs whose path starts with this (repeatable)',
    type: 'list',
  }),
  monitorKind: setting({
    schema: z.array(z.enum(CHANGE_KINDS)),
    expects: `change kinds: ${CHANGE_KINDS.join(', ')}`,
    default: [] as ChangeKind[],
    flag: 'monitor-kind',
    env: 'TRAWL_MONITOR_KINDS',
    help: 'tell only changes of these kinds (repeatable; default: all but unchanged)',
    type: 'list',
  }),
  monitorMinChange: setting({
    schema: z.coerce.number().min(0).max(1),
    expects: 'a share of the text blocks from 0 to 1',
    default: 0,
    flag: 'monitor-min-change',
    env: 'TRAWL_MONITOR_MIN_CHANGE',
    help: 'tell a changed page only when at least this share of its text blocks changed, or a monitored field did',
    type: 'string',
  }),
  monitorField: setting({
    ...list,
    default: [] as string[],
    flag: 'monitor-field',
    env: 'TRAWL_MONITOR_FIELDS',
    help: 'tell a changed page only when one of these metadata or --field values changed (title, price, …; repeatable)',
    type: 'list',
  }),
} as const;
