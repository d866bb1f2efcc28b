// Preloaded into every test process by scripts/run-tests.mjs (`--import ./test/fast-harness.mjs`).
//
// node:test's harness enables an async hook with init and destroy callbacks for the life of the
// process, to tell which test an uncaught exception came from. It costs every promise the process
// makes ~1 µs (2,000,000 awaits: 2.0 s under node:test against 0.11 s without it, on Node 20, 22
// and 24), and the crawls, emulators and SDK clients these tests run make tens of millions:
// 14–25 % of a crawl test's CPU. This gives the harness an inert hook instead, and nothing else.
//
// What it changes: an uncaught exception or unhandled rejection still fails the run (exit 1, the
// error printed), but it is reported at the top level of its file instead of under its test. To
// see which test, run the file with TRAWL_TEST_ASYNC_HOOK=keep. The harness's other use of the hook
// (a `test()` called inside another test's body, or `it()` inside `describe()`, is made a subtest)
// is one these tests do not make: they use `t.test()` or top-level `test()` only.
import asyncHooks from 'node:async_hooks';

if (process.env.TRAWL_TEST_ASYNC_HOOK !== 'keep') {
  const createHook = asyncHooks.createHook;
  asyncHooks.createHook = function (callbacks) {
    if (new Error().stack?.includes('internal/test_runner/harness')) return { enable: () => undefined, disable: () => undefined };
    return createHook.call(this, callbacks);
  };
}
