import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createCore } from '../../src/create-core';
import { dataDirKeeper, hashOf } from '../../src/durable/data-dir';
import type { AppOptions } from '../../src/express/app';
import type { Worlds } from '../../src/store/worlds';
import { api, createContact, expectError, makeApp, manualClock, sendMessage } from '../helpers';

/**
 * Worlds kept in a data dir (`dataDir`, `--data-dir`): what each token wrote comes back after a
 * restart, exactly; a torn last record is dropped and a damaged file set aside, the other worlds
 * served; a full disk refuses a write with 507 and applies nothing of it; a world the memory
 * bounds shed stays on disk; a token is never a path.
 */
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-dir-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const clock = manualClock();
const app = (options: AppOptions = {}) => makeApp({ dataDir: dir, now: clock.now, seed: 3, ...options });
const exported = async (server: ReturnType<typeof app>, token: string) =>
  (await api(server, token).get('/__mock/state').expect(200)).text;
/** A copy of the seeded world of a server, as its keeper is handed one. */
const worldOf = (server: ReturnType<typeof app>) =>
  (server.locals.worlds as Worlds).of('seed-copy').clone(null);
const fileOf = (token: string) => path.join(dir, 'worlds', `${hashOf(token)}.log`);

/** A token's writes of every kind: creates, renames, a message with an attachment, reactions, deletes. */
async function writeSome(server: ReturnType<typeof app>, token: string): Promise<string> {
  const ada = await createContact(server, { username: `ada_${token}`, display_name: 'Ada' }, token);
  const bo = await createContact(server, { username: `bo_${token}` }, token);
  await api(server, token)
    .put(`/v1/contacts/${ada.id}`)
    .type('form')
    .send({ display_name: 'Ada L.' })
    .expect(200);
  const first = await sendMessage(server, ada.conversation_id, 'first', token);
  clock.advance(1);
  await api(server, token)
    .post('/v1/messages')
    .type('form')
    .send({
      conversation_id: ada.conversation_id,
      message: 'with a file',
      'attachments[0][filename]': 'a.pdf',
      'attachments[0][file_url]': 'https://files.example/a.pdf',
    })
    .expect(201);
  await api(server, token)
    .put(`/v1/messages/${first.id}`)
    .type('form')
    .send({ 'reactions[like][]': 'bo' })
    .expect(200);
  await sendMessage(server, bo.conversation_id, 'to bo', token);
  await api(server, token).delete(`/v1/contacts/${bo.id}`).expect(204);
  // One of the seeded contacts goes too, with its conversation.
  const seeded = (await api(server, token).get('/v1/contacts?limit=100').expect(200)).body.data.at(-1);
  await api(server, token).delete(`/v1/contacts/${seeded.id}`).expect(204);
  return ada.id;
}

describe('a data dir', () => {
  it('brings back every world after a restart, its export equal byte for byte; the seeded world is never written', async () => {
    const before = app();
    await writeSome(before, 'one');
    await writeSome(before, 'two');
    await api(before, 'reader').get('/v1/contacts').expect(200);
    const exports = { one: await exported(before, 'one'), two: await exported(before, 'two') };
    const seeded = await exported(before, 'reader');

    const after = app();
    expect(await exported(after, 'one')).toBe(exports.one);
    expect(await exported(after, 'two')).toBe(exports.two);
    expect(await exported(after, 'reader')).toBe(seeded);
    // One file per token that wrote, holding only what it changed.
    const files = fs.readdirSync(path.join(dir, 'worlds')).sort();
    expect(files).toEqual([`${hashOf('one')}.log`, `${hashOf('two')}.log`].sort());
    expect(fs.statSync(fileOf('one')).size).toBeLessThan(seeded.length / 2);
    // Writes go on after the restart, with ids no record had.
    const made = await createContact(after, { username: 'after_restart' }, 'one');
    expect(exports.one).not.toContain(made.id);
  });

  it('keeps a fixture put and a reset as they are', async () => {
    const before = app();
    await writeSome(before, 'fx');
    const state = JSON.parse(await exported(before, 'fx'));
    state.contacts = state.contacts.slice(0, 2);
    state.messages = state.messages.filter((m: { conversation_id: string }) =>
      state.contacts.some((c: { conversation_id: string }) => c.conversation_id === m.conversation_id),
    );
    await api(before, 'fx').put('/__mock/state').send(state).expect(200);
    await createContact(before, { username: 'after_fixture' }, 'fx');
    await writeSome(before, 'rs');
    await api(before, 'rs').post('/__mock/reset').expect(204);
    const fixture = await exported(before, 'fx');
    const after = app();
    expect(await exported(after, 'fx')).toBe(fixture);
    expect(await exported(after, 'rs')).toBe(await exported(after, 'never-wrote'));
  });

  it('compacts a log as it grows: a contact renamed 1,000 times is a few lines on disk, and comes back as it was', async () => {
    const before = app();
    const ada = await createContact(before, { username: 'ada_many' }, 'many');
    for (let n = 0; n < 1000; n++)
      await api(before, 'many')
        .put(`/v1/contacts/${ada.id}`)
        .type('form')
        .send({ display_name: `Ada ${n}` })
        .expect(200);
    const written = fs.readFileSync(fileOf('many'), 'utf8');
    const lines = written.split('\n').length - 1;
    expect(lines).toBeLessThanOrEqual(201);
    // Each line of the log is one rename; 1,000 of them are much more than it holds.
    expect(written.length).toBeLessThan((1000 * written.length) / lines / 4);
    const exportedBefore = await exported(before, 'many');
    expect(await exported(app(), 'many')).toBe(exportedBefore);
    expect(exportedBefore).toContain('"display_name":"Ada 999"');
  });

  it('leaves the log of a world that only grows as it was written: nothing in it was written over', async () => {
    const before = app();
    for (let n = 0; n < 250; n++) await createContact(before, { username: `grows_${n}` }, 'grows');
    expect(fs.readFileSync(fileOf('grows'), 'utf8').split('\n').length - 1).toBe(250);
    const exportedBefore = await exported(before, 'grows');
    expect(await exported(app(), 'grows')).toBe(exportedBefore);
  });

  it('drops a torn last record, saying which token and how many bytes, and keeps the writes before it', async () => {
    const before = app();
    await writeSome(before, 'torn');
    const kept = await exported(before, 'torn');
    fs.appendFileSync(fileOf('torn'), '0badc0de {"change":{"contacts":[["x"');
    const lines: string[] = [];
    const after = app({ log: (line) => lines.push(line) });
    expect(await exported(after, 'torn')).toBe(kept);
    expect(lines).toEqual([
      expect.stringMatching(
        /^world of token to…: dropped a torn last record of 36 bytes \(cut short\) in .*\.log; the writes before it are kept$/,
      ),
    ]);
    // The file was cut back: the next start finds nothing torn.
    const again: string[] = [];
    expect(await exported(app({ log: (line) => again.push(line) }), 'torn')).toBe(kept);
    expect(again).toEqual([]);
  });

  it('sets a damaged file aside, naming it, and serves every other world', async () => {
    const before = app();
    const id = await writeSome(before, 'damaged');
    await writeSome(before, 'sound');
    const sound = await exported(before, 'sound');
    const lines = fs.readFileSync(fileOf('damaged'), 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"', "'");
    fs.writeFileSync(fileOf('damaged'), lines.join('\n'));
    const log: string[] = [];
    const after = app({ log: (line) => log.push(line) });
    await api(after, 'damaged').get(`/v1/contacts/${id}`).expect(404);
    expect(await exported(after, 'sound')).toBe(sound);
    expect(log).toEqual([
      expect.stringMatching(
        /^world of token da…: .*\.log cannot be read \(line 2 whose checksum differs, and more lines follow\); set aside as .*\.log\.damaged-.*, and the token starts from the seeded world$/,
      ),
    ]);
    expect(fs.readdirSync(path.join(dir, 'worlds')).filter((f) => f.includes('.damaged-'))).toHaveLength(1);
  });

  it('keeps a world the memory bounds shed on disk, and loads it back on its next request', async () => {
    const log: string[] = [];
    const server = app({ maxWorlds: 2, log: (line) => log.push(line) });
    const made = new Map<string, string>();
    for (const token of ['e1', 'e2', 'e3', 'e4'])
      made.set(token, (await createContact(server, { username: `u_${token}` }, token)).id);
    expect(log[0]).toMatch(
      /^world of token e1… left memory: least recently used, and at most 2 tokens keep a world in memory \(.* given back\); it stays in the data dir, and comes back on its next request$/,
    );
    // The control route says where each world is, without loading it.
    const kept = async (token: string) => (await api(server, token).get('/__mock/kept').expect(200)).body;
    expect(await kept('e1')).toEqual({ kept: 'data dir', in_memory: false, worlds_in_memory: 2 });
    expect(await kept('e4')).toEqual({ kept: 'data dir', in_memory: true, worlds_in_memory: 2 });
    for (const [token, id] of made) await api(server, token).get(`/v1/contacts/${id}`).expect(200);
    expect((await kept('e4')).in_memory).toBe(true);
  });

  it('never makes a path of a token: each is a hash under worlds/', async () => {
    const server = app();
    // Tokens an Authorization header may carry (b64token, the header at most 4,096 characters)...
    const sent = ['../../escape', '..', '/', 'a/../../b', '~root', 'x'.repeat(4000), 'CON', '.hidden'];
    for (const token of sent) await createContact(server, { username: 'hostile' }, token);
    // ...and any string at all, as an embedding may hand the keeper: NUL, 10 kB, Unicode, separators.
    const keeper = dataDirKeeper(dir, 'batch')({}, () => {});
    const given = ['nul\0byte', 'y'.repeat(10_240), 'токен 🎉', 'a\\b', 'C:\\x', '\n'];
    for (const token of given) {
      const world = keeper.restore(token, () => worldOf(server))!;
      world.createContact({ username: 'hostile', phone_number: '+15550100' } as never);
      keeper.save(token, world);
    }
    keeper.flush?.();
    expect(fs.readdirSync(dir).sort()).toEqual(['meta.json', 'worlds']);
    const names = fs.readdirSync(path.join(dir, 'worlds')).sort();
    expect(names).toEqual([...sent, ...given].map((token) => `${hashOf(token)}.log`).sort());
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{64}\.log$/);
    expect(fs.existsSync(path.join(dir, '..', 'escape'))).toBe(false);
  });

  it('refuses to start on worlds made with another seed, fixture or profile, saying which and what to do', () => {
    app();
    expect(() => app({ seed: 4 })).toThrow(
      /holds worlds made with another seed \(3, now 4\).*Start with the same options, or give another --data-dir/,
    );
    expect(() => app({ contacts: 7 })).toThrow(/another contacts \(6, now 7\)/);
  });
});

describe('a full disk', () => {
  it('answers a write 507, applies nothing of it, keeps serving reads, and takes writes again once there is room', async () => {
    let full = false;
    const io = {
      ...fs,
      writeSync: ((...args: Parameters<typeof fs.writeSync>) => {
        if (full) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        return (fs.writeSync as (...a: unknown[]) => number)(...args);
      }) as typeof fs.writeSync,
    };
    fs.mkdirSync(path.join(dir, 'worlds'));
    const core = createCore({ contacts: 4, messages: 10, keeper: dataDirKeeper(dir, 'always', io) });
    await core.ready;
    const call = (method: string, url: string, body?: Record<string, string>) =>
      core.handle({
        method,
        url,
        headers: {
          authorization: 'Bearer full',
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(body ? { body: new URLSearchParams(body).toString() } : {}),
      });
    const made = JSON.parse(
      (await call('POST', '/v1/contacts', { username: 'kept', phone_number: '+15550100' })).body,
    );
    const before = (await call('GET', '/__mock/state')).body;
    full = true;
    const refused = await call('POST', '/v1/contacts', { username: 'lost', phone_number: '+15550101' });
    expect(refused.status).toBe(507);
    expectError(JSON.parse(refused.body), 'insufficient_storage');
    expect(JSON.parse(refused.body).message).toMatch(/ENOSPC.*nothing of it was applied/);
    const renamed = await call('PUT', `/v1/contacts/${made.id}`, { display_name: 'lost too' });
    expect(renamed.status).toBe(507);
    // Reads go on, and show nothing of the refused writes.
    expect((await call('GET', '/__mock/state')).body).toBe(before);
    expect((await call('GET', `/v1/contacts/${made.id}`)).status).toBe(200);
    full = false;
    expect((await call('POST', '/v1/contacts', { username: 'room', phone_number: '+15550102' })).status).toBe(
      201,
    );
    expect(
      fs.readFileSync(path.join(dir, 'worlds', `${hashOf('full')}.log`), 'utf8').split('\n'),
    ).toHaveLength(3);
  });
});

describe('--fsync', () => {
  /** A core on a data dir whose syncs are noted: those that hold the event loop, and those in the background. */
  const noting = (mode: 'always' | 'batch') => {
    const synced = { blocking: 0, inTheBackground: [] as number[] };
    const io = {
      ...fs,
      fsyncSync: ((fd: number) => {
        synced.blocking++;
        fs.fsyncSync(fd);
      }) as typeof fs.fsyncSync,
      fsync: ((fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
        synced.inTheBackground.push(fd);
        fs.fsync(fd, done);
      }) as typeof fs.fsync,
    };
    fs.mkdirSync(path.join(dir, 'worlds'), { recursive: true });
    const core = createCore({ contacts: 4, messages: 10, keeper: dataDirKeeper(dir, mode, io) });
    const write = (n: number) =>
      core.handle({
        method: 'POST',
        url: '/v1/contacts',
        headers: { authorization: 'Bearer sync', 'content-type': 'application/x-www-form-urlencoded' },
        body: `username=s${n}&phone_number=%2B15550100`,
      });
    return { core, synced, write };
  };

  it('always: syncs each write before its answer', async () => {
    const { core, synced, write } = noting('always');
    await core.ready;
    for (let n = 0; n < 3; n++) expect((await write(n)).status).toBe(201);
    // Each write, and the folder once, for the name of the file the first one made.
    expect(synced.blocking).toBe(4);
  });

  it('batch: answers once the write is in its file, and syncs the files of the window in the background', async () => {
    const { core, synced, write } = noting('batch');
    await core.ready;
    for (let n = 0; n < 3; n++) expect((await write(n)).status).toBe(201);
    expect(synced.blocking).toBe(0);
    expect(
      fs.readFileSync(path.join(dir, 'worlds', `${hashOf('sync')}.log`), 'utf8').split('\n'),
    ).toHaveLength(4);
    // The window closes: the file and its folder (a new name in it) are synced, once a window
    // (the three writes took one or a few).
    while (synced.inTheBackground.length < 2) await new Promise((done) => setTimeout(done, 10));
    await new Promise((done) => setTimeout(done, 100));
    expect(synced.blocking).toBe(0);
    expect(synced.inTheBackground.length).toBeLessThanOrEqual(4);
  });
});

describe('without a data dir', () => {
  it('says in the log that a shed world is lost, and points at --data-dir', async () => {
    const log: string[] = [];
    const server = makeApp({ maxWorlds: 1, log: (line) => log.push(line) });
    for (const token of ['l1', 'l2'])
      await request(server).get('/v1/contacts').set('Authorization', `Bearer ${token}`);
    expect(log).toEqual([
      expect.stringMatching(/; its changes are lost: --data-dir keeps every token's world on disk$/),
    ]);
    const kept = await request(server).get('/__mock/kept').set('Authorization', 'Bearer l1').expect(200);
    expect(kept.body).toEqual({ kept: 'memory', in_memory: false, worlds_in_memory: 1 });
  });
});
