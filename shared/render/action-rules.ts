// The actions a crawl runs on the pages a pattern matches (`--actions`), read and checked.
import { z } from 'zod';
import { errorMessage, UsageError } from '../errors.js';
import { checkedSetting, jsonSettingValue } from '../util/json-setting.js';
import { denyPattern } from '../url/scope.js';
import { ACTION_MS, MAX_SCROLLS, type PageAction } from './actions.js';

const selector = z.string().min(1).max(500);
const Action: z.ZodType<PageAction> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('wait'), milliseconds: z.number().int().min(0).max(ACTION_MS).optional(), selector: selector.optional() }).strict(),
  z.object({ type: z.literal('click'), selector, all: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('scroll'), direction: z.enum(['down', 'up']).optional(), times: z.number().int().min(1).max(MAX_SCROLLS).optional() }).strict(),
  z.object({ type: z.literal('write'), selector: selector.optional(), text: z.string().max(10_000) }).strict(),
  z.object({ type: z.literal('type'), selector: selector.optional(), text: z.string().max(10_000) }).strict(),
  z.object({ type: z.literal('press'), key: z.string().min(1).max(40) }).strict(),
  z.object({ type: z.literal('screenshot'), fullPage: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('executeJavascript'), script: z.string().min(1).max(100_000) }).strict(),
]);
/** Actions for every rendered page… */
const Steps = z.array(Action).max(50);
/** …or rules: the first whose pattern (a glob, or `/regex/`, over the URL) matches. */
const Rules = z.array(z.object({ pattern: z.string().min(1), actions: Steps }).strict()).max(100);

/** The crawl's actions as a lookup by URL (undefined: none for that page), from `--actions`. */
export function pageActionsOf(settings: { actions?: unknown }): ((url: string) => PageAction[] | undefined) | undefined {
  const value = jsonSettingValue('actions', settings.actions ?? '');
  if (value === undefined) return undefined;
  const isRules = Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object' && 'pattern' in v);
  if (!isRules) {
    const every = checkedSetting('actions', Steps, value);
    return every.length ? () => every : undefined;
  }
  const given = checkedSetting('actions', Rules, value);
  const rules = given.map((r) => {
    try {
      return { match: denyPattern(r.pattern), actions: r.actions };
    } catch (err) {
      throw new UsageError(`the actions pattern ${JSON.stringify(r.pattern)} is not valid: ${errorMessage(err)}`);
    }
  });
  return (url) => rules.find((r) => r.match.test(url))?.actions;
}
