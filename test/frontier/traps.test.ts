import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_TRAP_LIMITS, TrapGuard } from '../../shared/frontier/traps.js';

const now = Date.parse('2026-11-23T00:00:00Z');
const guard = () => new TrapGuard(DEFAULT_TRAP_LIMITS, () => now);

test('bounds path depth', () => {
  const g = guard();
  assert.equal(g.admit(`http://a.test/${Array.from({ length: 12 }, (_, i) => `s${i}`).join('/')}`), null);
  assert.equal(g.admit(`http://a.test/${Array.from({ length: 13 }, (_, i) => `s${i}`).join('/')}`), 'trap:path-depth');
});

test('bounds repeated path segments', () => {
  const g = guard();
  assert.equal(g.admit('http://a.test/rel/more/more/'), null);
  assert.equal(g.admit('http://a.test/rel/more/more/more/'), 'trap:repeated-segment');
});

test('bounds distinct query variants per path', () => {
  const g = guard();
  for (let i = 0; i < 50; i++) assert.equal(g.admit(`http://a.test/list?sort=${i}`), null);
  assert.equal(g.admit('http://a.test/list?sort=999'), 'trap:query-variants');
  assert.equal(g.admit('http://a.test/list?sort=3'), null, 'an admitted variant stays admitted');
  assert.equal(g.admit('http://a.test/other?sort=999'), null);
});

test('bounds calendar paging by distinct dates and by the future horizon', () => {
  const g = guard();
  assert.equal(g.admit('http://a.test/cal?month=2028-01'), 'trap:calendar');
  let admitted = 0;
  for (let m = 0; m < 40; m++) {
    const d = new Date(Date.UTC(2026, 10 - m, 1));
    const month = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    if (g.admit(`http://a.test/cal?month=${month}`) === null) admitted++;
  }
  assert.equal(admitted, DEFAULT_TRAP_LIMITS.maxCalendarVariants);
  assert.equal(g.admit('http://a.test/events/2019/05/'), null, 'another template has its own budget');
  assert.equal(g.admit('http://a.test/cal?year=2031&month=2'), 'trap:calendar');
});

test('lets dated article paths through', () => {
  const g = guard();
  for (let i = 0; i < 100; i++) assert.equal(g.admit(`http://a.test/2026/05/post-${i}`), null);
});
