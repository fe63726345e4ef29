import fs from 'node:fs';
import { COPIES_FILE, copiesSource } from '../../scripts/generate-copies';
import { CONTACT } from '../../src/resources/contact';
import { boolean, text } from '../../src/resources/field';

/**
 * The store's copies (src/store/copies.generated.ts) are written from the field tables by
 * `npm run generate`, which `npm install`, `npm run build` and `npm test` run.
 */
it('the copies on disk are the ones the field tables make (else: npm run generate)', () => {
  expect(fs.readFileSync(COPIES_FILE, 'utf8')).toBe(copiesSource());
});

it('a field added to a table is in every copy of its record, and a sender field in the sender', () => {
  const table = CONTACT as Record<string, unknown>;
  const before = copiesSource();
  table.nickname = text({ max: 10 }, { sender: true, create: { by: 'store' } });
  try {
    const after = copiesSource();
    expect(before).not.toContain('nickname');
    // contactRecord, contactView and senderView, each from its own source.
    expect(after.match(/nickname: [cr]\.nickname,/g)).toHaveLength(3);
  } finally {
    delete table.nickname;
  }
  expect(copiesSource()).toBe(before);
});

it('a field with a fixed fallback that data leaves out is its fallback in the record made from data', () => {
  const table = CONTACT as Record<string, unknown>;
  table.pinned = boolean({
    create: { by: 'input', required: false, fallback: false, note: 'Absent: false.' },
  });
  try {
    const after = copiesSource();
    expect(after).toContain('pinned: c.pinned === undefined ? false : c.pinned,');
    expect(after).toContain('pinned: r.pinned,');
  } finally {
    delete table.pinned;
  }
});
