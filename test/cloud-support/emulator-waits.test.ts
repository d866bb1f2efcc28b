import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmulatorWaits } from '../../support/cloud/emulator-waits.js';

test("a handler run's waits on the emulators count calls in parallel once, and each run's are its own", () => {
  const waits = new EmulatorWaits();
  // Two calls at once (10–30 and 20–40), one inside them (25–28), one after a gap (50–55).
  waits.add(1, 20, 40);
  waits.add(1, 10, 30);
  waits.add(1, 25, 28);
  waits.add(1, 50, 55);
  waits.add(2, 0, 7);
  assert.equal(waits.ms(1), 35);
  assert.equal(waits.ms(2), 7);
  assert.equal(waits.ms(3), 0);
  waits.clear();
  assert.equal(waits.ms(1), 0);
});
