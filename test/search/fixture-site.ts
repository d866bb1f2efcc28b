import { serve } from '../helpers.js';
import { guideResponse } from '../web/guides.js';

/** The search fixture as a small loopback site of its own (the `guides` host of the synthetic web). */
export async function startFixtureSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  return serve((req, res) => {
    const r = guideResponse((req.url ?? '/').split('?')[0]!) ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
    res.writeHead(r.status, r.headers).end(r.body);
  });
}
