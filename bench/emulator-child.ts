// The cloud emulators (dynalite, s3rver, local-aws-sqs) in a process of their own, so a bench that
// measures its own heap does not count the emulated tables: prints the endpoints and the
// provisioned names as one JSON line, and stops when its stdin closes.
import { startEmulators } from '../support/cloud/emulators.js';

const emu = await startEmulators();
const names = await emu.provision(process.argv[2] ?? 'bench');
const { credentials, region, ...endpoints } = emu.endpoints;
console.log(JSON.stringify({ endpoints: { ...endpoints, region, credentials }, names }));
process.stdin.resume();
process.stdin.on('end', () => void emu.stop().then(() => process.exit(0)));
