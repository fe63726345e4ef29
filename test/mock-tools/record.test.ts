import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { progressLine } from '../../src/cli/record';
import { createApp } from '../../src/express/app';
import { fixtureJson, validateFixture } from '../../src/fixtures';
import { anonymize } from '../../src/recording/anonymize';
import { convertRecording } from '../../src/recording/convert';
import { spoolAccount } from '../../src/recording/recorder';
import { Spool } from '../../src/recording/spool';
import type { WorldData } from '../../src/store/world';
import { startWrapped, type Running, type Wrapper } from '../contract-kit/harness';
import { honestButDifferent, withoutPaging } from '../contract-kit/servers';
import { startStaging, STAGING_DEFAULTS, STAGING_VARIANTS } from '../contract-kit/staging';
import { failsAfter, foreignConventions, methodsOf } from './record-servers';

/**
 * messaging-fixtures --from: recording a server's account as a fixture of the mock. The recorder
 * runs in this process (as the CLI loads it) and, where said, as the built CLI in a process of
 * its own; `npm run build` comes first.
 */
const ROOT = path.join(__dirname, '..', '..');
const FIXTURES_CLI = path.join(ROOT, 'dist', 'cli', 'fixtures-cli.js');
const BIN = path.join(ROOT, 'dist', 'cli', 'bin.js');
const TOKEN = 'recorder-token';

jest.setTimeout(60_000);

const servers: Running[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

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

/** The recorder in this process, as messaging-fixtures --from runs it (through a spool), up to the checked fixture. */
async function record(url: string, seed = 1) {
  const spool = new Spool();
  try {
    const account = await spoolAccount({ baseUrl: url, token: TOKEN }, spool);
    const converted = await convertRecording(spool.source(account.baseUrl, account.ordered), seed);
    const data: WorldData = { contacts: [], messages: [] };
    await converted.records({
      contact: (contact) => data.contacts.push(contact),
      message: (message) => data.messages.push(message),
    });
    const { conversions, warnings, notes } = converted;
    return { account, conversions, warnings, notes, data: validateFixture(JSON.parse(JSON.stringify(data))) };
  } finally {
    spool.remove();
  }
}

const lines = (tallies: { what: string; count: number }[]) =>
  Object.fromEntries(tallies.map(({ what, count }) => [what, count]));

async function get(base: string, pathAndQuery: string, token = TOKEN) {
  const res = await fetch(`${base}${pathAndQuery}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text() };
}

/**
 * Every page of GET /v1/contacts, of GET /v1/messages?conversation_id=… for each contact, and of
 * GET /v1/messages, at the default page size, walked with starting_after: request, status, body.
 */
async function everyPage(base: string): Promise<string[]> {
  const pages: string[] = [];
  const walk = async (list: string, query: string) => {
    let after: string | undefined;
    do {
      const request = `${list}?${query}${after ? `&starting_after=${after}` : ''}`;
      const { status, text } = await get(base, request);
      pages.push(`${request} → ${status} ${text}`);
      const page = JSON.parse(text) as { has_more: boolean; data: { id: string }[] };
      after = page.has_more ? page.data.at(-1)!.id : undefined;
    } while (after);
  };
  await walk('/v1/contacts', '');
  const contacts = JSON.parse((await get(base, '/v1/contacts?limit=100')).text) as {
    data: { conversation_id: string }[];
  };
  for (const contact of contacts.data)
    await walk('/v1/messages', `conversation_id=${contact.conversation_id}`);
  await walk('/v1/messages', '');
  return pages;
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'record-'));
}

/** A built bin, run as a user would; asynchronous, since the servers it talks to live in this process. */
function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The built mock serving a fixture file on a free port, until `stop`. */
async function serveFile(file: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--quiet', '--fixtures', file], { cwd: ROOT });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', () => reject(new Error(`the mock stopped: ${output}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((done) => {
        child.removeAllListeners('close');
        child.on('close', () => done());
        child.kill('SIGTERM');
      }),
  };
}

async function stateOf(base: string): Promise<WorldData> {
  return JSON.parse((await get(base, '/__mock/state')).text) as WorldData;
}

describe('recording the mock', () => {
  let url: string;
  beforeAll(async () => {
    url = await listen();
  });

  it("gives back the world it holds, byte for byte: the fixture is the mock's own GET /__mock/state", async () => {
    const recorded = await record(`${url}/v1`);
    expect(recorded.data.contacts).toHaveLength(25);
    expect(recorded.data.messages).toHaveLength(300);
    expect(fixtureJson(recorded.data)).toBe(fixtureJson(await stateOf(url)));
    expect(recorded.conversions).toEqual([]);
    expect(recorded.warnings).toEqual([]);
    expect(recorded.account.paging).toBe('`starting_after=<last id>`');
  });

  it('makes a mock that answers every page of every list as the recorded one does', async () => {
    const copy = await listen((await record(url)).data);
    const original = await everyPage(url);
    expect(original.length).toBeGreaterThan(60);
    expect(await everyPage(copy)).toEqual(original);
  });

  it('reads only: every request it sends is a GET', async () => {
    const methods: string[] = [];
    await record(await wrapped(methodsOf(methods)));
    expect(methods.length).toBeGreaterThan(25);
    expect(new Set(methods)).toEqual(new Set(['GET']));
  });

  it('the same through the built messaging-fixtures --from and the built mock serving the file, as processes', async () => {
    const file = path.join(tmpDir(), 'recorded.json');
    const recorded = await run(FIXTURES_CLI, ['--from', `${url}/v1`, '--token', TOKEN, '--out', file]);
    expect(recorded.stderr).toMatch(
      /^recorded http:\/\/127\.0\.0\.1:\d+: 25 contacts, 300 messages in \d+\.\d s \(30 requests, [\d,]+ messages\/s; next pages by `starting_after=<last id>`\)\nnothing to convert: the answers follow the mock's conventions\nwrote \S+recorded\.json\n$/,
    );
    expect(recorded.code).toBe(0);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['recorded.json']);
    const served = await serveFile(file);
    try {
      expect(await everyPage(served.url)).toEqual(await everyPage(url));
    } finally {
      await served.stop();
    }
  });
});

/** A world without its ids, each message naming its conversation by the index of its contact. */
function withoutIds(data: WorldData) {
  const owner = new Map(data.contacts.map((c, i) => [c.conversation_id, i]));
  return {
    contacts: data.contacts.map(({ id: _id, conversation_id: _c, ...rest }) => rest),
    messages: data.messages.map(({ id: _id, conversation_id, attachments, ...rest }) => ({
      ...rest,
      contact: owner.get(conversation_id),
      attachments: attachments.map(({ id: _a, message_id: _m, ...a }) => a),
    })),
  };
}

const timestampsOf = (data: WorldData) => {
  const set = (times: (number | null)[]) => times.filter((t) => t !== null).length;
  return {
    contacts: set(data.contacts.flatMap((c) => [c.created_at, c.last_active_at])),
    messages: set(data.messages.flatMap((m) => [m.created_at, m.read_at, m.updated_at])),
    attachments: data.messages.flatMap((m) => m.attachments).length,
  };
};

describe('recording servers that fill the gaps otherwise', () => {
  it('numbered ids, ISO and millisecond timestamps, emoji reactions, other attachment fields: the same world, converted and said so', async () => {
    const url = await wrapped(foreignConventions());
    const state = await stateOf(url);
    const recorded = await record(url);
    expect(withoutIds(recorded.data)).toEqual(withoutIds(state));

    const times = timestampsOf(state);
    const withReactions = state.messages.filter((m) => m.reactions.length > 0).length;
    const attachments = state.messages.flatMap((m) => m.attachments).length;
    const said = lines(recorded.conversions);
    expect(said).toMatchObject({
      'timestamps as date text (ISO 8601) → Unix seconds': times.contacts,
      'timestamps in milliseconds → seconds': times.messages,
      'numeric ids → the same digits as text': 2 * 25 + 300 + attachments,
      'ids that another record has already → new ids, consistently': expect.any(Number),
      'phone numbers with other characters → digits, spaces and + - ( ) . only': 25,
      'a contact without display_name → its username': state.contacts.filter(
        (c) => c.display_name === c.username,
      ).length,
      'a message without reactions → []': 300 - withReactions,
      'reactions as one object → a list of one object per name': withReactions,
      'reaction names that are emoji → their names (👍 → thumbs_up)': expect.any(Number),
      "attachments' `name`, `url`, `content_type`, `size` → filename, file_url, file_type, file_size":
        attachments,
      "an attachment without message_id → its message's id": attachments,
      "a contact's field `object` → left out": 25,
      "a message's field `object` → left out": 300,
    });
    expect(recorded.warnings).toEqual([]);
    // Ids shared by kinds: contact 1, conversation 1 and message 1 became three ids.
    expect(recorded.data.contacts[0]!.id).not.toBe(recorded.data.contacts[0]!.conversation_id);
  });

  it('honestButDifferent: prefixed ids kept, millisecond timestamps in seconds, its oldest-first list put in creation order', async () => {
    const url = await wrapped(honestButDifferent());
    const recorded = await record(url);
    const state = await stateOf(await wrapped());
    const prefixed = JSON.parse(
      JSON.stringify(state).replace(/"(id|conversation_id|message_id)":"/g, '"$1":"obj_'),
    ) as WorldData;
    expect(recorded.data).toEqual(prefixed);
    const times = timestampsOf(state);
    expect(recorded.conversions).toEqual([
      {
        what: 'timestamps in milliseconds → seconds',
        count: times.contacts + times.messages + times.attachments,
      },
    ]);
    expect(recorded.account.paging).toBe('`cursor=<next token from the body>`');
  });

  it.each(STAGING_VARIANTS.map((v) => [v.name, v.options] as const))(
    'the independent staging server (%s): a valid fixture of its whole account',
    async (_name, options) => {
      const staging = await startStaging(options);
      servers.push(staging);
      const recorded = await record(staging.url);
      const o = { ...STAGING_DEFAULTS, ...options };
      expect(recorded.data.contacts).toHaveLength(o.seedContacts);
      expect(recorded.data.messages).toHaveLength(o.seedMessages);
      const said = lines(recorded.conversions);
      if (o.timestamps === 'milliseconds')
        expect(said['timestamps in milliseconds → seconds']).toBeGreaterThan(0);
      if (o.ids === 'numeric')
        expect(said['ids that another record has already → new ids, consistently']).toBeGreaterThan(0);
      if (o.reactionsLayout === 'merged')
        expect(said['reactions with several names in one object → one object a name']).toBeGreaterThan(0);
      if (o.attachments === 'own-shape')
        expect(
          said[
            "attachments' `name`, `url`, `content_type`, `size` → filename, file_url, file_type, file_size"
          ],
        ).toBeGreaterThan(0);
      expect(recorded.account.paging).toBeDefined();
      expect(recorded.warnings).toEqual([]);
    },
  );

  it('a server whose answers carry headers longer than Node reads by default (a 40 kB trace header): its whole account', async () => {
    const url = await wrapped({
      response(_req, res) {
        res.headers['x-trace'] = 't'.repeat(40_000);
      },
    });
    const recorded = await record(url);
    expect(recorded.data).toEqual(await stateOf(await wrapped()));
  });

  it('a server that offers no way to its next page cannot be recorded, and says why', async () => {
    await expect(record(await wrapped(withoutPaging()))).rejects.toThrow(
      /cannot list the contacts \(GET \/v1\/contacts\): the server offers no next-page mechanism the kit knows/,
    );
  });
});

describe('a check that can fail', () => {
  it('the page comparison tells a mock serving one changed reaction from the recorded one', async () => {
    const url = await listen();
    const data = (await record(url)).data;
    const oldest = data.messages[0]!;
    oldest.reactions = [...oldest.reactions, { tada: ['someone_else'] }];
    const [original, changed] = [await everyPage(url), await everyPage(await listen(data))];
    const differing = original.filter((page, i) => page !== changed[i]);
    // The oldest message is on the last page of its conversation and of the list of every message.
    expect(differing).toHaveLength(2);
    for (const page of differing) expect(page).toContain(oldest.id);
  });
});

/** Every personal value of a world: what anonymizing must leave nowhere. */
function personalValues(data: WorldData): Set<string> {
  const values = new Set<string>();
  for (const c of data.contacts)
    for (const v of [c.username, c.phone_number, c.avatar_url, c.display_name]) if (v) values.add(v);
  for (const m of data.messages) {
    values.add(m.message);
    for (const r of m.reactions) for (const users of Object.values(r)) for (const u of users) values.add(u);
    for (const a of m.attachments) values.add(a.filename).add(a.file_url);
  }
  return values;
}

const stringsOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : value && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, v]) => [key, ...stringsOf(v)])
      : [];

const extension = (name: string) => /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? '';
const urlEnding = (url: string) => extension(new URL(url).pathname.split('/').pop() ?? '');

/** What anonymizing keeps: everything but the personal values, which show only as what they were. */
function structureOf(data: WorldData) {
  return {
    contacts: data.contacts.map((c) => ({
      ...c,
      username: 'username',
      phone_number: 'phone',
      avatar_url: 'avatar',
      display_name:
        c.display_name === null || c.display_name.trim() === ''
          ? c.display_name
          : c.display_name === c.username
            ? 'the username'
            : 'a name',
    })),
    messages: data.messages.map((m) => ({
      ...m,
      message: 'text',
      reactions: m.reactions.map((r) =>
        Object.fromEntries(Object.entries(r).map(([n, us]) => [n, us.length])),
      ),
      attachments: m.attachments.map((a) => ({
        ...a,
        filename: extension(a.filename),
        file_url: urlEnding(a.file_url),
      })),
    })),
  };
}

/** The fake each original username got, from the contacts and every reaction; what disagrees. */
function usernamesGiven(original: WorldData, fake: WorldData) {
  const given = new Map<string, string>();
  const disagreements: string[] = [];
  const pair = (from: string, to: string) => {
    if (given.has(from) && given.get(from) !== to)
      disagreements.push(`${from} → ${given.get(from)} and ${to}`);
    given.set(from, to);
  };
  original.contacts.forEach((c, i) => pair(c.username, fake.contacts[i]!.username));
  original.messages.forEach((m, i) =>
    m.reactions.forEach((r, j) =>
      Object.entries(r).forEach(([name, users]) =>
        users.forEach((u, k) => pair(u, fake.messages[i]!.reactions[j]![name]![k]!)),
      ),
    ),
  );
  return { given, disagreements };
}

describe('--anonymize', () => {
  it.each([
    ['the mock', () => listen()],
    [
      'the staging server (reactions by several people, and by "me", who is no contact)',
      async () => {
        const staging = await startStaging({ seedMessages: 400 });
        servers.push(staging);
        return staging.url;
      },
    ],
  ])(
    '%s: every personal value replaced, the same fake for the same value, the rest kept',
    async (_n, start) => {
      const original = (await record(await start())).data;
      const fake = validateFixture(anonymize(original, 1));

      expect(structureOf(fake)).toEqual(structureOf(original));
      const { given, disagreements } = usernamesGiven(original, fake);
      expect(disagreements).toEqual([]);
      expect(new Set(given.values()).size).toBe(given.size);
      const reactors = original.messages.flatMap((m) => m.reactions.flatMap((r) => Object.values(r).flat()));
      expect(reactors.length).toBeGreaterThan(10);
      // Display names that were the username are the fake username.
      fake.contacts.forEach((c, i) => {
        if (original.contacts[i]!.display_name === original.contacts[i]!.username)
          expect(c.display_name).toBe(c.username);
      });

      const originals = personalValues(original);
      expect(stringsOf(fake).filter((s) => originals.has(s))).toEqual([]);
      const text = fixtureJson(fake);
      // Nor inside another value: names, usernames and phone numbers (texts may share a common phrase).
      const identifying = original.contacts.flatMap((c) => [
        c.username,
        c.phone_number,
        c.display_name ?? '',
      ]);
      expect(identifying.filter((v) => v.length >= 6 && text.includes(v))).toEqual([]);
    },
  );

  it('is seeded: the same seed gives the same fixture, another seed another, from the built CLI too', async () => {
    const url = await listen();
    const recorded = (await record(url)).data;
    expect(fixtureJson(anonymize(recorded, 7))).toBe(fixtureJson(anonymize(recorded, 7)));
    expect(fixtureJson(anonymize(recorded, 8))).not.toBe(fixtureJson(anonymize(recorded, 7)));
    const cli = await run(FIXTURES_CLI, [
      '--from',
      url,
      '--token',
      TOKEN,
      '--anonymize',
      '--seed',
      '7',
      '--out',
      '-',
    ]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toBe(fixtureJson(anonymize(recorded, 7)));
    expect(cli.stderr).toContain(
      "anonymized (seed 7): names, usernames, phone numbers, avatars, texts and file names are faker's",
    );
  });
});

describe('failures', () => {
  it('a server that answers 500 mid-way: exit 1, naming the request, and the existing file stays as it was', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'account.json');
    fs.writeFileSync(file, 'before\n');
    const result = await run(FIXTURES_CLI, [
      '--from',
      await wrapped(failsAfter(12)),
      '--token',
      TOKEN,
      '--out',
      file,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: the recording failed, and nothing was written: cannot list the messages of conversation \w+ \(GET \/v1\/messages\?conversation_id=\w+\): GET \/v1\/messages did not answer a page of results \(last answer: GET \/v1\/messages\?conversation_id=\w+ → 500 \{"message":"the database is gone"\}\)\n$/,
    );
    expect(fs.readdirSync(dir)).toEqual(['account.json']);
    expect(fs.readFileSync(file, 'utf8')).toBe('before\n');
  });

  it('a server that stops answering mid-way: exit 1, and no file', async () => {
    const dir = tmpDir();
    const result = await run(FIXTURES_CLI, [
      '--from',
      await wrapped(failsAfter(12, 0)),
      '--token',
      TOKEN,
      '--out',
      path.join(dir, 'account.json'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: the recording failed, and nothing was written: the server stopped answering: GET http:\/\/127\.0\.0\.1:\d+\/v1\/messages\?conversation_id=\w+&limit=100: (socket hang up|ECONNRESET)/,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it.each<[string, () => Promise<string[]>, RegExp]>([
    [
      'no --token',
      async () => ['--from', await listen()],
      /^error: --token is needed with --from: the bearer token of the account to record\.\n/,
    ],
    [
      'a URL that is not http(s)',
      async () => ['--from', 'ftp://example.com', '--token', TOKEN],
      /^error: --from "ftp:\/\/example\.com" is not an http\(s\) URL\n$/,
    ],
    [
      'no URL at all',
      async () => ['--from', 'example', '--token', TOKEN],
      /^error: --from "example" is not a URL; give the server's root, e.g\. http:\/\/127\.0\.0\.1:4010\n$/,
    ],
    [
      'a server that is not there',
      async () => {
        const url = await listen();
        await servers.pop()!.close();
        return ['--from', url, '--token', TOKEN];
      },
      /^error: --from http:\/\/127\.0\.0\.1:\d+: the server does not answer \(GET http:\/\/127\.0\.0\.1:\d+\/v1\/contacts: ECONNREFUSED/,
    ],
    [
      'a token the server refuses',
      async () => ['--from', await wrapped({}, { tokens: ['another-token'] }), '--token', TOKEN],
      /^error: --token: the server refuses it \(GET http:\/\/127\.0\.0\.1:\d+\/v1\/contacts → 401 \{"type":"invalid_request","code":"invalid_token"/,
    ],
    [
      'a server that is not the API',
      async () => ['--from', `${await listen()}/somewhere/else`, '--token', TOKEN],
      /^error: --from http:\/\/127\.0\.0\.1:\d+\/somewhere\/else: GET \/v1\/contacts does not answer a page of results \(\{"has_more", "data"\}\): GET \/v1\/contacts → 404/,
    ],
    [
      '--out a folder',
      async () => ['--from', await listen(), '--token', TOKEN, '--out', tmpDir()],
      /^error: --out \S+: is a folder; give the path of a file\n$/,
    ],
    [
      '--contacts with --from',
      async () => ['--from', await listen(), '--token', TOKEN, '--contacts', '3'],
      /^error: option '--contacts <n>' cannot be used with option '--from <url>'/,
    ],
    [
      '--anonymize without --from',
      async () => ['--anonymize', '--out', '-'],
      /^error: --anonymize goes with --from <url>\./,
    ],
  ])('%s: a usage error (exit 2) that names the option', async (_name, args, message) => {
    const result = await run(FIXTURES_CLI, await args());
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });
});

describe('progress', () => {
  it('redraws one line at most ten times a second, and clears it', () => {
    let written = '';
    let now = 1000;
    const line = progressLine({ write: (text: string) => (written += text) }, 0, () => now);
    const progress = {
      phase: 'conversations' as const,
      contacts: 25,
      conversationsWalked: 3,
      messages: 1500,
      requests: 9,
    };
    line.update(progress);
    now += 50;
    line.update({ ...progress, conversationsWalked: 4 });
    now += 60;
    line.update({ ...progress, conversationsWalked: 5, messages: 2200 });
    line.clear();
    expect(written).toBe(
      '\r\x1b[K3 / 25 conversations, 1,500 messages, 1,500 messages/s' +
        '\r\x1b[K5 / 25 conversations, 2,200 messages, 1,982 messages/s' +
        '\r\x1b[K',
    );
  });

  it('--progress draws a line of conversations, messages and a rate on standard error, then the summary', async () => {
    const url = await wrapped({}, { latency: { min: 15, max: 15 } });
    const result = await run(FIXTURES_CLI, ['--from', url, '--token', TOKEN, '--progress', '--out', '-']);
    expect(result.code).toBe(0);
    const drawn = result.stderr.split('\r\x1b[K').filter((line) => line !== '');
    expect(
      drawn.some((line) => /^\d+ \/ 25 conversations, [\d,]+ messages, [\d,]+ messages\/s$/.test(line)),
    ).toBe(true);
    expect(drawn.at(-1)).toMatch(/^recorded http:\/\/127\.0\.0\.1:\d+: 25 contacts, 300 messages in/);
  });

  it('stays quiet but for the summary when standard error is not a terminal', async () => {
    const result = await run(FIXTURES_CLI, ['--from', await listen(), '--token', TOKEN, '--out', '-']);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('\r');
    expect(result.stderr.split('\n')[0]).toMatch(/^recorded /);
  });
});
