// The search API and web UI in a Lambda behind a Function URL: the same Hono app `trawl serve`
// runs, read only. IAM auth on the URL by default; in the public mode every request but /healthz
// carries an API key whose SHA-256 the construct put in API_KEY_SHA256.
import { searchApi, type Handler } from '../search-runtime.js';

export const handler: Handler = (event, context) => searchApi()(event, context);
