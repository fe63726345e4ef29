import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/express/app';
import { loadFixtureFile } from '../../src/fixture-file';
import { FixtureError, fixtureJson, validateFixture } from '../../src/fixtures';
import { generateWorld } from '../../src/seed';
import { World } from '../../src/store/world';

const ROOT = path.join(__dirname, '..', '..');
const DEMO = path.join(ROOT, 'fixtures', 'demo.json');

function tmpFile(name: string, text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'fixture-')), name);
  writeFileSync(file, text);
  return file;
}

describe('fixtures/demo.json', () => {
  it('is what `npm run fixtures -- --seed 42 --contacts 25 --messages 300` writes, byte for byte', () => {
    const result = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'dist', 'cli', 'fixtures-cli.js'),
        '--seed',
        '42',
        '--contacts',
        '25',
        '--messages',
        '300',
        '--out',
        '-',
      ],
      { encoding: 'utf8', maxBuffer: 10 * 1024 * 1024 },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(readFileSync(DEMO, 'utf8'));
  });

  it('is a valid world of 25 contacts and 300 messages', () => {
    const data = loadFixtureFile(DEMO);
    expect(data.contacts).toHaveLength(25);
    expect(data.messages).toHaveLength(300);
  });

  it('is served as it is, and GET /__mock/state gives it back', async () => {
    const data = loadFixtureFile(DEMO);
    const app = createApp({ data });
    const state = await request(app).get('/__mock/state').set('Authorization', 'Bearer t').expect(200);
    expect(fixtureJson(state.body)).toBe(readFileSync(DEMO, 'utf8'));
  });
});

describe('validateFixture', () => {
  const good = () => World.fromData(generateWorld({ seed: 5, contacts: 3, messages: 12 })).toData();
  type Doc = ReturnType<typeof good>;

  it('accepts a generated world', () => {
    expect(validateFixture(JSON.parse(JSON.stringify(good())))).toEqual(good());
  });

  it.each<[string, (doc: Doc) => unknown, string]>([
    ['a list at the root', () => [], '(root)'],
    [
      'a missing field',
      (d) => ({ ...d, contacts: [{ ...d.contacts[0], username: undefined }] }),
      'contacts[0].username',
    ],
    ['a bad phone number', (d) => ((d.contacts[1]!.phone_number = 'call me'), d), 'contacts[1].phone_number'],
    ['a non-integer timestamp', (d) => ((d.contacts[2]!.created_at = 1.5), d), 'contacts[2].created_at'],
    [
      'an unknown field',
      (d) => ({ ...d, contacts: [{ ...d.contacts[0], nickname: 'x' }] }),
      'contacts[0].nickname',
    ],
    ['a duplicate id', (d) => ((d.messages[1]!.id = d.messages[0]!.id), d), 'messages[1].id'],
    [
      'a conversation nobody owns',
      (d) => ((d.messages[3]!.conversation_id = 'nowhere'), d),
      'messages[3].conversation_id',
    ],
    ['an empty message', (d) => ((d.messages[0]!.message = ''), d), 'messages[0].message'],
    [
      'a malformed reaction',
      (d) => ((d.messages[0]!.reactions = [{ heart: 'bob' } as never]), d),
      'messages[0].reactions[0].heart',
    ],
    [
      'a reaction name given in two objects',
      (d) => ((d.messages[3]!.reactions = [{ heart: ['x'] }, { heart: ['y'] }]), d),
      'messages[3].reactions',
    ],
    [
      'more reaction names than a message holds (50)',
      (d) => ((d.messages[3]!.reactions = Array.from({ length: 51 }, (_, i) => ({ [`r${i}`]: ['x'] }))), d),
      'messages[3].reactions',
    ],
    [
      'more usernames than a reaction holds (500)',
      (d) => ((d.messages[3]!.reactions = [{ heart: Array.from({ length: 501 }, (_, i) => `u${i}`) }]), d),
      'messages[3].reactions[0].heart',
    ],
    [
      'more attachments than a message holds (100)',
      (d) => {
        const m = d.messages[3]!;
        m.attachments = Array.from({ length: 101 }, (_, i) => ({
          id: `att${String(i).padStart(13, '0')}`,
          message_id: m.id,
          filename: 'a.txt',
          file_url: 'https://example.com/a.txt',
          file_type: 'text/plain',
          file_size: 1,
          created_at: m.created_at,
        }));
        return d;
      },
      'messages[3].attachments',
    ],
  ])('refuses %s, naming the record and the field', (_what, spoil, where) => {
    const doc = spoil(good());
    try {
      validateFixture(JSON.parse(JSON.stringify(doc)));
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(FixtureError);
      expect((error as FixtureError).path).toBe(where);
    }
  });

  it('names the file in what loadFixtureFile throws', () => {
    expect(() => loadFixtureFile(tmpFile('broken.json', '{"contacts": ['))).toThrow(
      /broken\.json: is not valid JSON/,
    );
    expect(() => loadFixtureFile('/nonexistent/world.json')).toThrow(
      /^\/nonexistent\/world\.json: there is no such file \(looked for \/nonexistent\/world\.json\)\.$/,
    );
    expect(() => loadFixtureFile(path.dirname(DEMO))).toThrow(
      /: is a folder; give the path of a fixture file/,
    );
    expect(() => loadFixtureFile(tmpFile('bad.json', '{"contacts": [], "messages": [], "x": 1}'))).toThrow(
      /bad\.json: is not a valid fixture: \(root\)/,
    );
  });
});

describe('npm start -- --fixtures PATH', () => {
  it('stops the start with a message naming the file, the record and the field', () => {
    const doc = JSON.parse(readFileSync(DEMO, 'utf8'));
    doc.messages[7].read_at = 'yesterday';
    const file = tmpFile('bad-world.json', JSON.stringify(doc));
    const result = spawnSync(
      process.execPath,
      [path.join(ROOT, 'dist', 'cli', 'bin.js'), '--port', '0', '--fixtures', file],
      {
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('bad-world.json');
    expect(result.stderr).toContain('messages[7].read_at');
  });
});
