import { randomInt, randomUUID } from 'node:crypto';
import type { IdFormat } from '../../common/server-profile';
import { asPage } from '../../common/paging';
import { InfraError, is2xx, is4xx, send, type Exchange } from '../http/http';
import type { RecordLine } from '../http/records';
import { idsOf } from './build';
import type { Observations } from '../http/observations';
import { record } from './observe';
import { errorShapeOf, isObject, seenOf } from './shapes';
import { recordPath } from '../rules/resources';

/**
 * The few requests the server profile needs beyond the kit's ordinary ones, sent by the bin once,
 * after the tests, and only for --profile-out: a list without a token, limits the document does
 * not allow (0, -1, abc) and large ones (100, 101, 1000), and a retrieve of an id of the server's
 * own format that was never made. Each goes through the kit's client and counts against the run's
 * request budget; one that cannot be sent leaves its choice unknown, with the reason.
 */
export async function probeProfile(records: RecordLine[]): Promise<void> {
  await asking('missing token', async () => {
    const answer = await send('GET', '/v1/contacts', { token: null });
    record(
      'missing token',
      is4xx(answer)
        ? { status: answer.status }
        : { unknown: `a list without Authorization answered ${answer.status}` },
      seenOf(answer),
    );
  });
  await asking('invalid limit', async () => {
    const said: string[] = [];
    for (const limit of ['0', '-1', 'abc']) {
      const answer = await send('GET', '/v1/contacts', { query: { limit } });
      if (is4xx(answer)) return record('invalid limit', { status: answer.status }, seenOf(answer));
      said.push(`limit=${limit} ${is2xx(answer) ? 'was taken' : `answered ${answer.status}`}`);
    }
    record('invalid limit', { unknown: said.join(', ') }, '');
  });
  await asking('unknown id', () => unknownId(records));
  await asking('limit bounds', () => limitBounds(records));
  await asking('json body', async () => {
    // The same create, without its required parameters, as a form and as JSON: a server that
    // reads JSON refuses both alike (for what they leave out); one that does not, the JSON apart.
    const form = await send('POST', '/v1/contacts', { form: [['display_name', 'Probe']] });
    const json = await send('POST', '/v1/contacts', { json: { display_name: 'Probe' } });
    // A server that made a contact all the same: the kit deletes what it made.
    for (const made of [form, json])
      if (is2xx(made) && isObject(made.body) && typeof made.body.id === 'string')
        await send('DELETE', recordPath('contact', made.body.id));
    if (!is4xx(form) || !is4xx(json))
      return record(
        'json body',
        {
          unknown: `a create without its required parameters answered ${form.status} as a form, ${json.status} as JSON`,
        },
        '',
      );
    record(
      'json body',
      form.status === json.status ? { taken: true } : { taken: false, status: json.status },
      seenOf(json),
    );
  });
}

type Probe = 'missing token' | 'invalid limit' | 'unknown id' | 'limit bounds' | 'json body';

/** Runs one probe; a request that got no answer (or did not fit the budget) leaves it unknown. */
async function asking(probe: Probe, ask: () => Promise<void>): Promise<void> {
  try {
    await ask();
  } catch (error) {
    if (!(error instanceof InfraError)) throw error;
    if (probe === 'limit bounds') record(probe, {}, '');
    else record(probe, { unknown: `could not ask: ${error.message}` }, '');
  }
}

/**
 * An id of the server's own format that it never gave: a number of nines as long as its numeric
 * ids, a fresh UUID, or the characters its ids use, at random, in the shape of one of them.
 */
function madeUpId(format: IdFormat, examples: string[]): string {
  const rests = examples.map((id) => id.slice(format.prefix.length));
  const longest = Math.max(...rests.map((rest) => rest.length));
  if (format.kind === 'numeric') return `${format.prefix}${'9'.repeat(longest)}`;
  if (format.kind === 'uuid') {
    const uuid = randomUUID();
    return `${format.prefix}${rests.some((rest) => /[A-F]/.test(rest)) ? uuid.toUpperCase() : uuid}`;
  }
  const alphabet = [...new Set(rests.join('').replace(/[^A-Za-z0-9]/g, ''))];
  const shape = rests[0]!;
  const made = [...shape].map((c) => (/[A-Za-z0-9]/.test(c) ? alphabet[randomInt(alphabet.length)]! : c));
  return `${format.prefix}${made.join('')}`;
}

async function unknownId(records: RecordLine[]): Promise<void> {
  const format = idsOf(records, 'contact');
  const examples = records.flatMap((r) => (r.kind === 'created' && r.resource === 'contact' ? [r.id] : []));
  if (!('value' in format) || examples.length === 0) {
    const why = 'value' in format ? 'the run made no contact' : format.unknown;
    return record('unknown id', { unknown: `no id to make one like it: ${why}` }, '');
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = await send('GET', recordPath('contact', madeUpId(format.value, examples)));
    if (is4xx(answer))
      return record(
        'unknown id',
        { status: answer.status, shape: errorShapeOf(answer) ?? null },
        seenOf(answer),
      );
    if (!is2xx(answer))
      return record('unknown id', { unknown: `a retrieve of a made-up id answered ${answer.status}` }, '');
  }
  record('unknown id', { unknown: "three made-up ids in the contact ids' format were all found" }, '');
}

/** What one `limit` got: refused, cut to a number (a short page that says has_more), or taken. */
type Limited =
  | { kind: 'refused' | 'taken' | 'other'; exchange: Exchange }
  | { kind: 'clamped'; at: number; exchange: Exchange };

async function asked(path: string, limit: number): Promise<Limited> {
  const exchange = await send('GET', path, { query: { limit } });
  if (is4xx(exchange)) return { kind: 'refused', exchange };
  const page = asPage(exchange);
  if (!page) return { kind: 'other', exchange };
  if (page.has_more && page.data.length < limit) return { kind: 'clamped', at: page.data.length, exchange };
  return { kind: 'taken', exchange };
}

/**
 * The largest limit, and what a larger one gets: limit=100, 101 and 1000 on the contacts list (and
 * 1000 on the messages list, which may be longer, when none of those showed a bound). A refusal
 * means the server refuses what is over its maximum, which is then found between the largest limit
 * taken and the smallest refused; a short page that says has_more means it cuts, at that size.
 */
async function limitBounds(records: RecordLine[]): Promise<void> {
  const tried: { limit: number; got: Limited }[] = [];
  for (const limit of [100, 101, 1000]) tried.push({ limit, got: await asked('/v1/contacts', limit) });
  const bound = () => tried.some((t) => t.got.kind === 'refused' || t.got.kind === 'clamped');
  if (!bound()) tried.push({ limit: 1000, got: await asked('/v1/messages', 1000) });
  const clamped = tried.flatMap((t) => (t.got.kind === 'clamped' ? [t.got] : []));
  let result: Observations['limit bounds'];
  let seen = '';
  if (clamped.length > 0) {
    const sizes = new Set(clamped.map((c) => c.at));
    seen = seenOf(clamped[0]!.exchange);
    result = sizes.size === 1 ? { max: clamped[0]!.at, overMax: 'clamp' } : {};
  } else if (tried.some((t) => t.got.kind === 'refused')) {
    ({ result, seen } = await refusedAbove(tried, records));
  } else {
    // Every limit up to 1000 taken, and no list long enough to show a cut: nothing known.
    result = {};
  }
  record('limit bounds', result, seen);
}

/** A server that refuses large limits: its maximum, between the largest taken and the smallest refused. */
async function refusedAbove(
  tried: { limit: number; got: Limited }[],
  records: RecordLine[],
): Promise<{ result: Observations['limit bounds']; seen: string }> {
  const smallest = (kind: Limited['kind']) =>
    tried.filter((t) => t.got.kind === kind).sort((a, b) => a.limit - b.limit);
  let high = smallest('refused')[0]!;
  let low = smallest('taken')
    .filter((t) => t.limit < high.limit)
    .at(-1);
  if (!low) {
    // The size of a page without limit is one the server takes: start from it.
    const pageSize = records.find((r) => r.kind === 'profile' && r.key === 'default limit')?.value;
    const start = typeof pageSize === 'number' && pageSize < high.limit ? pageSize : 1;
    const got = await asked('/v1/contacts', start);
    if (got.kind === 'taken') low = { limit: start, got };
  }
  for (let steps = 0; low && high.limit - low.limit > 1 && steps < 12; steps++) {
    const limit = Math.floor((low.limit + high.limit) / 2);
    const got = await asked('/v1/contacts', limit);
    if (got.kind === 'refused') high = { limit, got };
    else if (got.kind === 'taken') low = { limit, got };
    else break;
  }
  const refusedSeen = seenOf(high.got.exchange);
  if (!low || high.limit - low.limit > 1)
    return {
      result: { overMax: 'refuse' },
      seen: refusedSeen,
    };
  return {
    result: { max: low.limit, overMax: 'refuse' },
    seen: `${seenOf(low.got.exchange)}; ${refusedSeen}`,
  };
}
