import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InFlightJournal, JOURNAL_FILE } from '../../shared/store/local/in-flight-journal.js';
import { tempDir } from '../../support/helpers.js';

const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

test('the in-flight journal stays bounded over a long crawl: a file goes once the database has its marks', () => {
  const { dir, cleanup } = tempDir();
  try {
    const journal = new InFlightJournal(dir);
    journal.reset();
    const file = join(dir, JOURNAL_FILE);
    let largest = 0;
    for (let i = 0; i < 20_000; i++) {
      journal.committed(journal.mark(1, `url-${i}`));
      largest = Math.max(largest, size(file) + size(`${file}.1`));
    }
    // 20,000 lines would be ~190 KB; two files of 4,096 lines at most are held.
    assert.ok(largest < 2 * 4096 * 12, `journal grew to ${largest} bytes`);
    // The marks a kill would keep from the database are all still counted.
    const pending = Array.from({ length: 10_000 }, (_, i) => journal.mark(1, `late-${i % 5000}`));
    journal.committed(pending[0]!);
    const attempts = journal.attempts(1);
    assert.equal(attempts.get('late-0'), 2, 'two marks of one URL: two attempts');
    assert.equal(attempts.get('late-4999'), 2);
    assert.equal(journal.attempts(2).size, 0, 'another run has none');
    journal.close();
    // A resume in a new process reads what the files hold.
    assert.equal(new InFlightJournal(dir).attempts(1).get('late-1234'), 2);
  } finally {
    cleanup();
  }
});

test("a journal whose marks are all committed leaves no file when it closes; a reader's journal never removes a crawl's", () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = join(dir, JOURNAL_FILE);
    const crawl = new InFlightJournal(dir);
    crawl.reset();
    const marks = Array.from({ length: 5000 }, (_, i) => crawl.mark(1, `url-${i}`));
    // A reader (trawl status during the crawl) opens and closes a journal of its own.
    new InFlightJournal(dir).close();
    assert.ok(existsSync(file), "the reader left the crawl's journal alone");
    for (const m of marks.slice(0, -1)) crawl.committed(m);
    crawl.close();
    assert.ok(existsSync(file), 'a mark the database does not hold keeps the journal');
    const again = new InFlightJournal(dir);
    again.reset();
    again.committed(again.mark(1, 'url-0'));
    again.close();
    assert.ok(!existsSync(file) && !existsSync(`${file}.1`), 'every mark committed: no journal left');
  } finally {
    cleanup();
  }
});

test('an archived answer stays in the journal until its commit, through rotations, and is read back by a new process', () => {
  const { dir, cleanup } = tempDir();
  try {
    const journal = new InFlightJournal(dir);
    journal.reset();
    const answer = (n: number) => ({
      warc: { file: 'trawl-1-x-00000.warc.gz', offset: n * 100, length: 90, recordId: `<urn:uuid:${n}>` },
      at: n,
      durationMs: 3,
      wireBytes: 512,
    });
    journal.committed(journal.mark(1, 'slow'));
    journal.answered(1, 'slow', answer(7));
    journal.committed(journal.mark(1, 'done'));
    journal.answered(1, 'done', answer(8));
    journal.settled('done');
    // Many more requests, each committed: the files rotate, the uncommitted answer stays.
    for (let i = 0; i < 12_000; i++) journal.committed(journal.mark(1, `url-${i}`));
    const answers = new InFlightJournal(dir).answers(1);
    assert.deepEqual(answers.get('slow'), answer(7), 'an answer not committed survives rotation');
    assert.equal(new InFlightJournal(dir).answers(2).size, 0, 'another run has none');
    // Answered again (a resume read it back): the later line wins, and one settle releases it.
    journal.answered(1, 'slow', answer(9));
    assert.deepEqual(journal.answers(1).get('slow'), answer(9));
    journal.settled('slow');
    journal.close();
    assert.ok(!existsSync(join(dir, JOURNAL_FILE)), 'every answer committed: no journal left');
  } finally {
    cleanup();
  }
});
