// Serves the synthetic web until interrupted: npm run web [-- --port-mode]
import { startWeb } from './server.js';

const mode = process.argv.includes('--port-mode') ? 'port' : undefined;
const web = await startWeb({}, mode);
for (const [name, origin] of Object.entries(web.origins)) console.log(`${name.padEnd(8)} ${origin}/`);
console.log('serving; Ctrl-C to stop');
process.once('SIGINT', () => void web.close().then(() => process.exit(0)));
