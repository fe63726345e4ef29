import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/express/app';
import { fixtureJson, FixtureJsonWriter, validateFixture } from '../../src/fixtures';
import { convertRecording, toFixture, type Conversion } from '../../src/recording/convert';
import { writeFixture } from '../../src/recording/output';
import { spoolAccount } from '../../src/recording/recorder';
import { Spool, type RecordSource } from '../../src/recording/spool';
import { generateWorld } from '../../src/seed';
import { World, type WorldData } from '../../src/store/world';
import { startWrapped, type Running, type Wrapper } from '../contract-kit/harness';
import { foreignConventions } from './record-servers';

/**
 * The recorder's way through a temporary file (spool.ts): pages written as they are walked,
 * records read back in any order, the fixture written a record at a time, the file whole or
 * absent, and nothing left behind. What the recorder's memory per message comes to is measured by
 * `npm run soak -- --only recorder`, not here; these tests prove the structure that keeps it small.
 */
const ROOT = path.join(__dirname, '..', '..');
const FIXTURES_CLI = path.join(ROOT, 'dist', 'cli', 'fixtures-cli.js');
const TOKEN = 'spool-token';

jest.setTimeout(60_000);

const servers: Running[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-spool-'));
  folders.push(dir);
  return dir;
}

async function wrapped(wrapper: Wrapper = {}, options: Parameters<typeof startWrapped>[1] = {}) {
  const server = await startWrapped(wrapper, options);
  servers.push(server);
  return server.url;
}

function listen(data?: WorldData): Promise<string> {
  return new Promise((resolve) => {
    const server: Server = createApp(data ? { data } : {}).listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
    servers.push({
      url: '',
      close: () => new Promise<void>((done) => (server.close(() => done()), server.closeAllConnections())),
    });
  });
}

async function stateOf(base: string): Promise<WorldData> {
  const res = await fetch(`${base}/__mock/state`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return (await res.json()) as WorldData;
}

/** Every record of a source, read back as an account in memory. */
async function inMemory(source: RecordSource) {
  const contacts: unknown[] = [];
  const messages: unknown[] = [];
  const order: string[] = [];
  await source.scan('contacts', (value) => contacts.push(value));
  await source.scan('messages', (value) => messages.push(value));
  await source.scan('order', (value) => order.push(value as string));
  let at = 0;
  const conversations = source.conversations.map(({ id, messages: n }) => ({
    conversation_id: id,
    messages: messages.slice(at, (at += n)),
  }));
  return {
    baseUrl: source.baseUrl,
    contacts,
    conversations,
    order: source.ordered === undefined ? undefined : order,
    notes: [],
    requests: 0,
  };
}

async function dataOf(conversion: Conversion): Promise<WorldData> {
  const data: WorldData = { contacts: [], messages: [] };
  await conversion.records({
    contact: (contact) => data.contacts.push(contact),
    message: (message) => data.messages.push(message),
  });
  return data;
}

describe('the spool', () => {
  it('writes pages as lines of one file in a folder of its own, reads them back, and remove() leaves nothing', async () => {
    const parent = tmpDir();
    const spool = new Spool(parent);
    expect(fs.readdirSync(parent)).toEqual([path.basename(spool.dir)]);
    const contacts = [{ id: 'c1', name: 'Zoë 👋' }, { id: 'c2' }];
    spool.write('contacts', contacts);
    spool.conversation('v1');
    spool.write('messages', [{ id: 'm1', text: 'line\u2028separator' }]);
    spool.conversation('v2');
    spool.conversation('v3');
    spool.write('messages', [{ id: 'm2' }, { id: 'm3' }]);
    spool.write('order', ['m3', 'm2', 'm1']);
    const text = fs.readFileSync(path.join(spool.dir, 'records.ndjson'), 'utf8');
    expect(text.split('\n')).toHaveLength(3 + 2 + 3 + 1);

    const source = spool.source('https://api.example.com', true);
    expect(source.conversations).toEqual([
      { id: 'v1', messages: 1 },
      { id: 'v2', messages: 0 },
      { id: 'v3', messages: 2 },
    ]);
    expect(source.ordered).toBe(3);
    // Offsets count bytes: a record with emoji or U+2028 comes back whole, and so does the next one.
    expect(source.read('contacts', 0)).toEqual(contacts[0]);
    expect(source.read('messages', 0)).toEqual({ id: 'm1', text: 'line\u2028separator' });
    expect(source.read('messages', 2)).toEqual({ id: 'm3' });
    expect(() => source.read('messages', 3)).toThrow(RangeError);
    expect((await inMemory(source)).order).toEqual(['m3', 'm2', 'm1']);
    expect(spool.source('https://api.example.com', false).ordered).toBeUndefined();

    spool.remove();
    spool.remove();
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  it('takes the parts in their order only: contacts, messages (after their conversation), the order', () => {
    const spool = new Spool(tmpDir());
    try {
      expect(() => spool.write('messages', [{ id: 'm1' }])).toThrow(/after their conversation/);
      spool.write('order', ['m1']);
      expect(() => spool.write('contacts', [{ id: 'c1' }])).toThrow(/contacts come before its order/);
      expect(() => spool.conversation('v1')).toThrow(/messages come before its order/);
    } finally {
      spool.remove();
    }
  });

  it('reads a part larger than its block, and a record larger than a block, in the exact order written', async () => {
    const spool = new Spool(tmpDir(), 256);
    try {
      const messages = Array.from({ length: 500 }, (_, i) => ({
        id: `m${i}`,
        text: i % 97 === 0 ? 'é'.repeat(700) : `text ${i}`,
      }));
      spool.write('contacts', [{ id: 'c' }]);
      spool.conversation('v');
      for (let i = 0; i < messages.length; i += 7) spool.write('messages', messages.slice(i, i + 7));
      const source = spool.source('https://api.example.com', false);
      const read: unknown[] = [];
      await source.scan('messages', (value, i) => {
        expect(i).toBe(read.length);
        read.push(value);
      });
      expect(read).toEqual(messages);
      for (const i of [499, 0, 97, 98, 250]) expect(source.read('messages', i)).toEqual(messages[i]);
    } finally {
      spool.remove();
    }
  });
});

describe('converting from the spool', () => {
  it.each<[string, () => Promise<string>]>([
    ['the mock', () => listen()],
    [
      'a server of other conventions (numbered ids shared by kinds, ISO and millisecond times, emoji reactions)',
      () => wrapped(foreignConventions()),
    ],
  ])(
    '%s: in blocks of 512 bytes, the fixture is the account in memory converted, in the same order, with the same summary',
    async (_name, start) => {
      const url = await start();
      const spool = new Spool(tmpDir(), 512);
      try {
        const walked = await spoolAccount({ baseUrl: url, token: TOKEN }, spool);
        const source = spool.source(walked.baseUrl, walked.ordered);
        const fromSpool = await convertRecording(source, 3);
        const fromMemory = await toFixture(await inMemory(source), 3);
        const data = await dataOf(fromSpool);
        expect(data.messages.length).toBe(300);
        expect(fixtureJson(data)).toBe(fixtureJson(fromMemory.data));
        expect(fromSpool.conversions).toEqual(fromMemory.conversions);
        expect(fromSpool.warnings).toEqual(fromMemory.warnings);
        expect(fromSpool.notes).toEqual(fromMemory.notes);
        // Already the mock's order: oldest first, ties as the mock makes them.
        expect(fixtureJson(World.fromData(validateFixture(data)).toData())).toBe(fixtureJson(data));
      } finally {
        spool.remove();
      }
    },
  );

  it('writes the fixture a record at a time: each record is written before the next one is read', async () => {
    const world = generateWorld({ seed: 5, contacts: 12, messages: 200 });
    const url = await listen(world);
    const spool = new Spool(tmpDir());
    try {
      const walked = await spoolAccount({ baseUrl: url, token: TOKEN }, spool);
      const source = spool.source(walked.baseUrl, walked.ordered);
      const events: string[] = [];
      const counted: RecordSource = {
        ...source,
        read: (part, index) => {
          events.push('read');
          return source.read(part, index);
        },
      };
      const conversion = await convertRecording(counted, 1);
      for (const anonymize of [false, true]) {
        events.length = 0;
        let text = '';
        await writeFixture(conversion, { anonymize, seed: 1 }, (piece) => {
          text += piece;
          if (piece.includes('"id"')) events.push('write');
        });
        expect(events).toEqual(Array.from({ length: 12 + 200 }, () => ['read', 'write']).flat());
        expect(validateFixture(JSON.parse(text)).messages).toHaveLength(200);
        if (!anonymize) expect(text).toBe(fixtureJson(await stateOf(url)));
      }
    } finally {
      spool.remove();
    }
  });

  it('walks a page at a time: with pages of 7, every page goes to the spool before the next request', async () => {
    const url = await listen();
    const spool = new Spool(tmpDir());
    const writes: { records: number; requests: number }[] = [];
    let requests = 0;
    const write = spool.write.bind(spool);
    spool.write = (part, records) => {
      writes.push({ records: records.length, requests });
      write(part, records);
    };
    try {
      await spoolAccount(
        { baseUrl: url, token: TOKEN, pageSize: 7, onProgress: (p) => (requests = p.requests) },
        spool,
      );
      const source = spool.source(url, true);
      expect([source.contacts, source.messages, source.ordered]).toEqual([25, 300, 300]);
      expect(Math.max(...writes.map((w) => w.records))).toBe(7);
      // 25 contacts, 300 messages twice over: no page was kept for later.
      expect(writes.length).toBeGreaterThanOrEqual(Math.ceil(25 / 7) + 2 * Math.ceil(300 / 7));
      for (let i = 1; i < writes.length; i++)
        expect(writes[i]!.requests).toBeGreaterThan(writes[i - 1]!.requests);
    } finally {
      spool.remove();
    }
  });
});

describe('the fixture as text, a record at a time', () => {
  it.each([
    [0, 0],
    [3, 0],
    [1, 1],
    [25, 300],
  ])('%i contacts, %i messages: the bytes of fixtureJson', (contacts, messages) => {
    const world = World.fromData(generateWorld({ seed: 2, contacts, messages })).toData();
    let text = '';
    const json = new FixtureJsonWriter((piece) => (text += piece));
    for (const contact of world.contacts) json.contact(contact);
    for (const message of world.messages) json.message(message);
    json.end();
    expect(text).toBe(fixtureJson(world));
  });

  it('refuses a contact after the messages, or anything after the end', () => {
    const world = generateWorld({ seed: 2, contacts: 1, messages: 1 });
    const json = new FixtureJsonWriter(() => undefined);
    json.message(world.messages[0]!);
    expect(() => json.contact(world.contacts[0]!)).toThrow(/contacts before messages/);
    json.end();
    expect(() => json.end()).toThrow();
  });
});

/** The built CLI as a process, with its own temporary folder; `onStart` sees it start. */
function run(
  args: string[],
  tmp: string,
  onStart?: (child: ChildProcess) => void,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FIXTURES_CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    onStart?.(child);
  });
}

/** Calls `then` once `seen` holds, checking every 5 ms. */
function when(seen: () => boolean, then: () => void): void {
  const timer = setInterval(() => {
    if (!seen()) return;
    clearInterval(timer);
    then();
  }, 5);
}

describe('messaging-fixtures --from leaves a whole file or none, and no temporary file', () => {
  it('written: only the file, and the temporary folder is empty again', async () => {
    const [tmp, out] = [tmpDir(), tmpDir()];
    const result = await run(
      ['--from', await listen(), '--token', TOKEN, '--out', path.join(out, 'a.json')],
      tmp,
    );
    expect(result.code).toBe(0);
    expect(fs.readdirSync(out)).toEqual(['a.json']);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('a record that cannot be converted, with --out -: nothing on standard output, exit 1, nothing left', async () => {
    const tmp = tmpDir();
    const broken = await wrapped({
      response(req, res) {
        const body = res.body as { data?: Record<string, unknown>[] };
        if (req.path === '/v1/messages' && body.data?.[0]) body.data[0].message = '';
      },
    });
    const result = await run(['--from', broken, '--token', TOKEN, '--out', '-'], tmp);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: the server's answers cannot be made into a fixture, and nothing was written: conversation \w+ messages\[0\] \(id \w+\)\.message: /,
    );
    expect(result.stdout).toBe('');
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('SIGINT during the walk: exit 130, the existing file as it was, nothing else left', async () => {
    const [tmp, out] = [tmpDir(), tmpDir()];
    const file = path.join(out, 'a.json');
    fs.writeFileSync(file, 'before\n');
    const slow = await wrapped({}, { latency: { min: 20, max: 20 } });
    const result = await run(['--from', slow, '--token', TOKEN, '--out', file], tmp, (child) =>
      // Once the spool holds some records.
      when(
        () =>
          fs.readdirSync(tmp).some((dir) => {
            const records = path.join(tmp, dir, 'records.ndjson');
            return fs.existsSync(records) && fs.statSync(records).size > 0;
          }),
        () => child.kill('SIGINT'),
      ),
    );
    expect(result.stderr).toMatch(/interrupted: nothing was written\n$/);
    expect(result.code).toBe(130);
    expect(fs.readdirSync(out)).toEqual(['a.json']);
    expect(fs.readFileSync(file, 'utf8')).toBe('before\n');
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('the check can fail: SIGKILL, which no process can handle, leaves the spool behind, and the check sees it', async () => {
    const tmp = tmpDir();
    const slow = await wrapped({}, { latency: { min: 20, max: 20 } });
    const result = await run(['--from', slow, '--token', TOKEN, '--out', '-'], tmp, (child) =>
      when(
        () => fs.readdirSync(tmp).length > 0,
        () => child.kill('SIGKILL'),
      ),
    );
    expect(result.signal).toBe('SIGKILL');
    expect(fs.readdirSync(tmp)).toEqual([expect.stringMatching(/^messaging-fixtures-/)]);
  });

  it('SIGINT while the fixture is written: exit 130, no file, no temporary file', async () => {
    const [tmp, out] = [tmpDir(), tmpDir()];
    const file = path.join(out, 'a.json');
    const url = await listen(generateWorld({ seed: 1, contacts: 40, messages: 8_000 }));
    const result = await run(['--from', url, '--token', TOKEN, '--out', file], tmp, (child) =>
      // The temporary file beside the destination is opened once the walk is over.
      when(
        () => fs.readdirSync(out).length > 0,
        () => child.kill('SIGINT'),
      ),
    );
    expect(result.stderr).toMatch(/^interrupted: nothing was written\n$/);
    expect(result.code).toBe(130);
    expect(fs.readdirSync(out)).toEqual([]);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});
