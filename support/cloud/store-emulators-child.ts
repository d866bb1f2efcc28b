// DynamoDB (dynalite) and S3 (s3rver) in a process of their own: prints their endpoints as one JSON
// line, and stops when its stdin closes (startEmulators({ stores: 'child' })).
import { startStoreEmulators } from './emulators.js';

const stores = await startStoreEmulators();
console.log(JSON.stringify({ dynamodb: stores.dynamodb, s3: stores.s3 }));
process.stdin.resume();
process.stdin.on('end', () => void stores.stop().then(() => process.exit(0)));
