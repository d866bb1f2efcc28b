import { z } from '@hono/zod-openapi';
import { CHANGE_KINDS } from '../config/change-kinds.js';
import { pageId } from './schemas.js';
import { realCalendarDate } from '../util/calendar-date.js';

/** Most changes one `/changes` answer lists. */
export const MAX_CHANGES = 1000;

export const ChangesQuery = z.object({
  run: z.coerce.number().int().min(1).optional().openapi({ description: 'The run (default: the latest run with changes).', example: 2 }),
  since: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}/, 'expected a date: YYYY-MM-DD or an ISO time')
    .refine((s) => realCalendarDate(s) && !Number.isNaN(Date.parse(s)), 'expected a date of the calendar: YYYY-MM-DD or an ISO time')
    .optional()
    .openapi({ description: 'Every run started at or after this time, instead of one run.', example: '2026-11-01' }),
  kind: z
    .string()
    .refine((s) => s.split(',').every((k) => (CHANGE_KINDS as readonly string[]).includes(k)), `expected kinds separated by commas: ${CHANGE_KINDS.join(', ')}`)
    .optional()
    .openapi({ description: 'Kinds, comma-separated (default: every kind but unchanged).', example: 'changed,removed' }),
  path: z
    .string()
    .startsWith('/', 'a path prefix starts with /')
    .optional()
    .openapi({ description: 'Only URLs whose path starts with this.', example: '/blog/' }),
  limit: z.coerce.number().int().min(1).max(MAX_CHANGES).default(200),
});

const Change = z
  .object({
    runId: z.number(),
    urlId: z.string(),
    url: z.string(),
    kind: z.enum(CHANGE_KINDS),
    at: z.number(),
    previousRunId: z.number().optional(),
    title: z.string().optional(),
    measure: z
      .object({
        simhashDistance: z.number(),
        blocksChanged: z.number(),
        blocksAdded: z.number(),
        blocksRemoved: z.number(),
        fieldsChanged: z.array(z.string()),
      })
      .optional(),
    removedBy: z.union([z.number(), z.literal('unlinked')]).optional(),
    linkedFrom: z.array(z.string()).optional(),
    unlinkedFrom: z.array(z.string()).optional(),
    rank: z.object({ inlinksBefore: z.number(), inlinksAfter: z.number(), pagerankBefore: z.number(), pagerankAfter: z.number() }).optional(),
  })
  .openapi('Change');

export const ChangesBody = z.object({ changes: z.array(Change), truncated: z.boolean() }).openapi('Changes');

export const DiffParams = z.object({
  run: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: 'run', in: 'path' }, example: 2 }),
  id: pageId,
});

export const DiffBody = z
  .object({
    runId: z.number(),
    urlId: z.string(),
    parts: z.array(z.object({ op: z.enum(['=', '-', '+', '…']), text: z.string() })),
  })
  .openapi('ChangeDiff');
