import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFields } from '../../shared/extract/fields.js';
import { fieldFromFlag, fieldSpec, fieldSpecs } from '../../shared/extract/field-specs.js';

const PAGE = `<html><head><title>T</title><script>var s = "NFPA 99";</script></head><body>
<h1>Acme</h1><p class="price">From $1,250.50 a year</p><time datetime="2024-03-01">March 1, 2024</time>
<ul class="certs"><li>NICET Level III</li><li>NFPA 25</li><li>NFPA 72<br>and more</li></ul>
<a class="pdf" href="/a.pdf">A</a> <a class="pdf" href="b.pdf">B</a> <a class="pdf" href="/a.pdf">A again</a>
<a href="mailto:x@a.test">mail</a></body></html>`;

test('the short form: text, @attribute, [] for a list, name:type on the command line', () => {
  assert.deepEqual(fieldFromFlag('pdfs:url=a.pdf@href[]', 0), { name: 'pdfs', selector: 'a.pdf', attr: 'href', list: true, type: 'url' });
  assert.deepEqual(fieldFromFlag("mail=a[href*='@']@href", 0), { name: 'mail', selector: "a[href*='@']", attr: 'href', list: false, type: 'string' });
  const f = extractFields(PAGE, 'https://a.test/docs/', [
    fieldFromFlag('title=h1', 0),
    fieldFromFlag('price:number=.price', 1),
    fieldFromFlag('when:date=time@datetime', 2),
    fieldFromFlag('pdfs:url=a.pdf@href[]', 3),
    fieldFromFlag('items=.certs li[]', 4),
    fieldFromFlag('none=.absent', 5),
    fieldFromFlag('notanumber:number=h1', 6),
  ]);
  assert.deepEqual(f, {
    title: 'Acme',
    price: 1250.5,
    when: '2024-03-01T00:00:00.000Z',
    // Resolved against the page, distinct, in document order.
    pdfs: ['https://a.test/a.pdf', 'https://a.test/docs/b.pdf'],
    // Blocks and <br> apart, whitespace collapsed.
    items: ['NICET Level III', 'NFPA 25', 'NFPA 72 and more'],
  });
});

test('match keeps part of a value (every match for a list, never script text); pages limits where a field runs', () => {
  const certs = fieldSpec('certs', { selector: 'body[]', match: '\\b(NICET(?: Level [IV]+)?|NFPA \\d+)\\b' }, 'test');
  const contact = fieldSpec('h', { selector: 'h1', pages: '/contact*' }, 'test');
  assert.deepEqual(extractFields(PAGE, 'https://a.test/', [certs, contact]), { certs: ['NICET Level III', 'NFPA 25', 'NFPA 72'] });
  assert.deepEqual(extractFields(PAGE, 'https://a.test/contact-us', [contact]), { h: 'Acme' });
});

test('bad fields fail with the field, where it was written and what to write', () => {
  assert.throws(() => fieldFromFlag('x=a[href', 1), /field "x" \(--field #2\): invalid CSS selector "a\[href": .*\(at character 2\)/);
  assert.throws(() => fieldFromFlag('y=p:foo', 0), /Unknown pseudo-class :foo \(at character 2\)/);
  assert.throws(() => fieldFromFlag('nameonly', 0), /write name=selector or name:type=selector/);
  assert.throws(() => fieldFromFlag('z:int=p', 0), /unknown type "int" for field "z": use string, number, date or url/);
  assert.throws(() => fieldFromFlag('1x=p', 0), /a field name starts with a letter/);
  assert.throws(
    () => fieldSpec('m', { selector: 'p', match: '(' }, 'profile p.json, fields.m'),
    /field "m" \(profile p.json, fields.m\): match is not a regular expression/,
  );
  assert.throws(() => fieldSpec('t', { selector: 'p', type: 'money' } as never, 'here'), /field "t" \(here\): type/);
  // The command line's field replaces the profile's of the same name.
  const specs = fieldSpecs({ a: 'h1', b: 'p' }, 'profile x', ['a=title']);
  assert.deepEqual(
    specs.map((s) => [s.name, s.selector]),
    [
      ['a', 'title'],
      ['b', 'p'],
    ],
  );
});
