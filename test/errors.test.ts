// One error registry. Every class trawl raises lives in shared/errors.ts, extends
// TrawlError and says what happens next; none stops a run because it forgot to say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as errors from '../shared/errors.js';

test('every error class is a TrawlError that names its next step, and the step-function names stay', () => {
  const { nextStep, ModelThrottledError, EnrichStepError, HostBusyError, ProviderError, ApiError, TrawlError } = errors;
  assert.equal(nextStep(new ModelThrottledError('slow down')), 'retry');
  assert.equal(new ModelThrottledError('x').name, 'ModelThrottled', 'the Retry of the Summarize and Index steps matches this name');
  assert.equal(nextStep(new EnrichStepError('index', new Error('no'))), 'fail-url');
  assert.equal(nextStep(new HostBusyError('a.test', 10)), 'retry');
  assert.equal(new HostBusyError('a.test', 10).name, 'HostBusy');
  assert.equal(nextStep(new ProviderError('rejected', 'bad model')), 'fail-url');
  assert.equal(nextStep(new ApiError('429 for too long', 429)), 'fail-url');
  for (const [name, value] of Object.entries(errors)) {
    if (typeof value !== 'function' || !/Error$/.test(name) || name === 'TrawlError') continue;
    assert.ok(value.prototype instanceof TrawlError, `${name} extends TrawlError`);
  }
});
