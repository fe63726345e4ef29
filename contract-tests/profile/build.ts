import {
  ID_KINDS,
  OPERATIONS,
  PROFILE_VERSION,
  isKnown,
  type Attachments,
  type ErrorBody,
  type IdFormat,
  type IdKind,
  type InputRules,
  type LimitBounds,
  type ListOrder,
  type Observed,
  type OwnFields,
  type Paging,
  type ServerProfile,
} from '../../common/server-profile';
import { VALUE_FORMS, type ValueForm } from '../../common/value-forms';
import type { RecordLine } from '../http/records';
import { ownFieldsOf } from './own-fields';
import type { ListName, Observations, ProfileKey, ProfileRecord } from '../http/observations';

/**
 * The server profile of `--profile-out`, put together by the bin from the run's ledger: every
 * choice that the records agree on, with the exchange that showed it; every other one unknown,
 * with the reason. Nothing is guessed: records that disagree make a choice unknown.
 */
type Seen<T> = { value: T; seen: string };

function of<K extends ProfileKey>(records: RecordLine[], key: K): Seen<Observations[K]>[] {
  return records
    .filter((r): r is Extract<ProfileRecord, { key: K }> => r.kind === 'profile' && r.key === key)
    .map((r) => ({ value: r.value as Observations[K], seen: r.seen }));
}

const known = <T>(value: T, seen: string): Observed<T> => ({ value, seen });
const unknown = <T>(why: string): Observed<T> => ({ unknown: why });

/** The one value every observation shows; unknown when there is none, or when they differ. */
function agreed<T>(
  seen: Seen<T>[],
  none: string,
  what: string,
  show: (value: T) => string = (value) => JSON.stringify(value),
): Observed<T> {
  if (seen.length === 0) return unknown(none);
  const distinct = [...new Map(seen.map((s) => [JSON.stringify(s.value), s])).values()];
  if (distinct.length === 1) return known(distinct[0]!.value, distinct[0]!.seen);
  const shown = distinct.slice(0, 3).map((d) => `${show(d.value)} (${d.seen})`);
  return unknown(`${what} differed: ${shown.join(', ')}${distinct.length > 3 ? ', …' : ''}`);
}

/** Alphabets nested in one another, the smallest first: the ids' is the smallest that holds all. */
const NESTED: readonly IdFormat['kind'][] = ['numeric', 'hex', 'alphanumeric'];

/** The kind of ids of these kinds: the smallest nested alphabet that holds them all, else `other`. */
function joinedKind(kinds: ReadonlySet<IdFormat['kind']>): IdFormat['kind'] {
  if (kinds.size === 1) return [...kinds][0]!;
  if (![...kinds].every((k) => NESTED.includes(k))) return 'other';
  return [...NESTED].reverse().find((k) => kinds.has(k))!;
}

/**
 * The format of the ids of one kind: the smallest alphabet that holds every id seen (digits ⊂ hex
 * ⊂ letters and digits), their prefix, their length or the range of their lengths, their JSON
 * type. Unknown only when the ids seen differ in prefix or JSON type.
 */
export function idsOf(records: RecordLine[], kind: IdKind): Observed<IdFormat> {
  const seen = of(records, 'id format')
    .filter((s) => s.value.kind === kind)
    .map((s) => ({ value: s.value.format, seen: s.seen }));
  const label = kind === 'conversation' ? 'conversation_id' : `${kind} id`;
  if (seen.length === 0) return unknown(`the run saw no ${label} in a create's answer`);
  return joinedFormat(seen, label);
}

/** The format of ids of one kind (`label`), from the format of each id seen (idsOf). */
export function joinedFormat(seen: Seen<IdFormat>[], label: string): Observed<IdFormat> {
  const first = seen[0]!;
  const formats = seen.map((s) => s.value);
  const same = (key: 'prefix' | 'json') => formats.every((f) => f[key] === first.value[key]);
  if (!same('prefix') || !same('json')) return agreed(seen, '', `the ${label}s' prefixes or JSON types`);
  const { prefix, json } = first.value;
  const idKind = joinedKind(new Set(formats.map((f) => f.kind)));
  const lengths = formats.map((f) => f.length).filter((l): l is number => l !== undefined);
  const [min, max] = [Math.min(...lengths), Math.max(...lengths)];
  const length =
    idKind === 'uuid' || lengths.length === 0
      ? {}
      : min === max
        ? { length: min }
        : { minLength: min, maxLength: max };
  const versions = new Set(formats.map((f) => f.version));
  const version =
    idKind === 'uuid' && versions.size === 1 && first.value.version !== undefined
      ? { version: first.value.version }
      : {};
  // Shown by the id that took the alphabet furthest.
  const widest = seen.find((s) => s.value.kind === idKind) ?? first;
  return known({ kind: idKind, prefix, json, ...length, ...version }, widest.seen);
}

/** The fields a list may be sorted by, the more likely first: created_at wins where several explain. */
const FIELDS: Record<ListName, ListOrder['field'][]> = {
  contacts: ['created_at', 'username', 'display_name', 'id'],
  messages: ['created_at', 'message', 'id'],
};

/**
 * The field and direction that explain every page of the whole list the run read: no page breaks
 * it, and some page shows it (ties show nothing). Strings are compared by code units or by the
 * locale's collation, either, but one of them throughout.
 */
function orderOf(records: RecordLine[], list: ListName): Observed<ListOrder> {
  const pages = of(records, 'list order').filter((p) => p.value.list === list);
  if (pages.length === 0) return unknown(`the run read no page of 3 items or more of the whole ${list} list`);
  const violated = new Set(pages.flatMap((p) => p.value.violated));
  for (const field of FIELDS[list])
    for (const direction of ['asc', 'desc'] as const)
      for (const compare of ['number', 'code', 'locale']) {
        const name = `${field} ${direction} ${compare}`;
        const shown = pages.find((p) => p.value.supported.includes(name));
        if (shown && !violated.has(name))
          return known(
            { field, direction, ...(field === 'created_at' ? tiesOf(records, list) : {}) },
            shown.seen,
          );
      }
  return known({ field: null }, pages[0]!.seen);
}

/** How a list by created_at orders records of the same created_at, when every page that showed it agrees. */
function tiesOf(records: RecordLine[], list: ListName): Pick<ListOrder, 'ties'> {
  const seen = new Set(
    of(records, 'list ties')
      .filter((t) => t.value.list === list)
      .map((t) => t.value.first),
  );
  if (seen.size !== 1) return {};
  return { ties: seen.has('older') ? 'older-first' : 'newer-first' };
}

function pagingOf(records: RecordLine[]): Observed<Paging> {
  const seen = of(records, 'paging');
  if (seen.length === 0) return unknown('no list the run walked needed a second page');
  const found = seen.filter((s) => s.value.paging !== null);
  if (found.length === 0)
    return unknown(
      'the lists showed no next-page mechanism the kit knows (a Link header, a next token or URL in the body, starting_after/after/cursor/since_id=<last id>, page=<n>, offset=<n>)',
    );
  return agreed(
    found.map((s) => ({ value: s.value.paging!, seen: s.seen })),
    '',
    'the next-page mechanisms of the lists',
  );
}

function limitOf(records: RecordLine[]): Observed<LimitBounds> {
  const pages = agreed(
    of(records, 'default limit'),
    'the run read no first page asked without limit that said has_more',
    'the sizes of pages asked without limit',
  );
  if (!('value' in pages)) return pages;
  const bounds = of(records, 'limit bounds')[0];
  const { max, overMax } = bounds?.value ?? {};
  return known(
    {
      default: pages.value,
      ...(max === undefined ? {} : { max }),
      ...(overMax === undefined ? {} : { overMax }),
    },
    bounds?.seen ? `${pages.seen}; ${bounds.seen}` : pages.seen,
  );
}

/**
 * Where refusals hold their message and code: the one shape of every 4xx body the run saw (its
 * keys the union of theirs), or, when they differ, the shape of the unknown-id answer.
 */
function errorBodyOf(records: RecordLine[]): Observed<ErrorBody> {
  const bodies = of(records, 'error body');
  const probe = of(records, 'unknown id')[0];
  const probeShape =
    probe && 'status' in probe.value && probe.value.shape
      ? { value: probe.value.shape, seen: probe.seen }
      : undefined;
  if (bodies.length === 0 && !probeShape) return unknown('the run saw no refusal with a body');
  const where = (shape: ErrorBody | null) =>
    shape && JSON.stringify([shape.contentType, shape.messageAt, shape.codeAt ?? null]);
  const shapes = new Set(bodies.map((b) => where(b.value.shape)));
  const one = bodies[0]?.value.shape;
  if (shapes.size === 1 && one) {
    const keys = [...new Set(bodies.flatMap((b) => b.value.shape!.keys))].sort();
    const placeKeys = [...new Set(bodies.flatMap((b) => b.value.shape!.placeKeys ?? []))].sort();
    const seen = probeShape && where(probeShape.value) === where(one) ? probeShape.seen : bodies[0]!.seen;
    return known({ ...one, keys, ...(placeKeys.length > 0 ? { placeKeys } : {}) }, seen);
  }
  if (probeShape) return known(probeShape.value, probeShape.seen);
  const without = bodies.find((b) => b.value.shape === null);
  return unknown(
    without
      ? `a refusal's body holds no message the kit knows (${without.seen}), and the unknown-id answer showed none`
      : 'the refusals differ in shape, and the unknown-id answer showed none',
  );
}

/** A probe's status, known when it was a refusal. */
function statusOf(
  records: RecordLine[],
  key: 'unknown id' | 'invalid limit' | 'missing token',
): Observed<number> {
  const probe = of(records, key)[0];
  if (!probe) return unknown('the probe was not sent (the run stopped before it)');
  return 'status' in probe.value ? known(probe.value.status, probe.seen) : unknown(probe.value.unknown);
}

function attachmentsOf(records: RecordLine[], sent: string[] | undefined): Observed<Attachments> {
  if (!sent) return unknown('the server took none of the attachment shapes the kit tried');
  const answers = of(records, 'attachment').filter(
    (a) => JSON.stringify(a.value.sent) === JSON.stringify(sent),
  );
  const answered = agreed(
    answers.map((a) => ({ value: a.value.answered, seen: a.seen })),
    'no answer showed an attachment the kit sent',
    "the keys of the kit's attachments as answered",
  );
  return 'value' in answered ? known({ sent, answered: answered.value }, answered.seen) : answered;
}

export interface ProfileMeta {
  /** The base URL as the user gave it, and its path (`/api`, or ''). */
  baseUrl: string;
  pathPrefix: string;
  observedAt: string;
  by: string;
  /** The keys of the attachment shape the kit's discovery found the server takes. */
  attachment?: string[];
}

export function buildProfile(records: RecordLine[], meta: ProfileMeta): ServerProfile {
  const statuses = of(records, 'success status');
  const deletes = (list: ListName) => {
    const seen = of(records, 'delete answer').filter((s) => s.value.list === list);
    const odd = seen.find((s) => s.value.answer === null);
    if (odd) return unknown<never>(`a delete answered a body that is no JSON object (${odd.seen})`);
    return agreed(
      seen.map((s) => ({ value: s.value.answer!, seen: s.seen })),
      `the run saw no successful delete of ${list}`,
      `the answers of the deletes of ${list}`,
    );
  };
  const units = of(records, 'timestamp unit');
  const oddUnit = units.find((u) => u.value === null);
  const paging = pagingOf(records);
  const errorBody = errorBodyOf(records);
  return {
    version: PROFILE_VERSION,
    server: {
      baseUrl: meta.baseUrl,
      pathPrefix: meta.pathPrefix,
      observedAt: meta.observedAt,
      by: meta.by,
    },
    contentType: agreed(
      of(records, 'content type'),
      'the run saw no successful JSON answer',
      'the content types of successful JSON answers',
    ),
    successStatus: Object.fromEntries(
      OPERATIONS.map((operation) => [
        operation,
        agreed(
          statuses
            .filter((s) => s.value.operation === operation)
            .map((s) => ({ value: s.value.status, seen: s.seen })),
          `the run saw no successful ${operation}`,
          `the statuses of ${operation}`,
        ),
      ]),
    ) as ServerProfile['successStatus'],
    deleteAnswer: { contacts: deletes('contacts'), messages: deletes('messages') },
    ids: Object.fromEntries(ID_KINDS.map((kind) => [kind, idsOf(records, kind)])) as ServerProfile['ids'],
    timestampUnit: oddUnit
      ? unknown(
          `created_at is in no unit the kit knows: seconds, milliseconds or microseconds (${oddUnit.seen})`,
        )
      : agreed(
          units as Seen<NonNullable<Observations['timestamp unit']>>[],
          "the run saw no created_at in a create's answer",
          'the units of created_at',
        ),
    order: { contacts: orderOf(records, 'contacts'), messages: orderOf(records, 'messages') },
    paging,
    limit: limitOf(records),
    errors: {
      body: errorBody,
      status: {
        unknownId: statusOf(records, 'unknown id'),
        deletedId: agreed(
          of(records, 'deleted id'),
          'the run retrieved no record it had deleted',
          'the statuses of retrieves of deleted records',
        ),
        malformedId: agreed(
          of(records, 'malformed id'),
          "the run retrieved none of the kit's made-up ids",
          "the statuses of retrieves of the kit's made-up ids",
        ),
        missingParameter: agreed(
          of(records, 'missing parameter'),
          'the run saw no create refused for a required parameter left out',
          'the statuses of creates without a required parameter',
        ),
        invalidLimit: statusOf(records, 'invalid limit'),
        missingToken: statusOf(records, 'missing token'),
      },
    },
    avatarDefault: agreed(
      of(records, 'avatar default'),
      'the run created no contact without avatar_url',
      'the avatar_url of contacts created without one',
    ),
    reactions: agreed(
      of(records, 'reactions').map((r) => ({ value: { layout: r.value }, seen: r.seen })),
      'the run saw no message with two reaction names',
      'the layouts of reactions',
    ),
    attachments: attachmentsOf(records, meta.attachment),
    reactionNames: reactionNamesOf(records),
    jsonBodies: jsonBodiesOf(records),
    ownFields: ownFieldsFrom(records, paging, errorBody),
    touchOnSend: agreed(
      of(records, 'touch on send'),
      'the run saw no answer of a send with its contact',
      "whether a send moved its contact's last_active_at",
    ),
    inputRules: inputRulesOf(records),
  };
}

/**
 * The input rules the kit can state (common/server-profile.ts InputRules). A refusal is about the
 * one field of its request whose value was unlike every value of that field taken (a refusal with
 * no such field, or more than one, states nothing): of forms never taken, or else longer than the
 * longest taken. A form is refused where it was the only one never taken of a refused value; a
 * value with several such forms and none of them stated is listed as not stated. A limit is stated
 * where the longest taken and the shortest refused are neighbours (the kit's long values narrow it
 * so with --profile-out).
 */
function inputRulesOf(records: RecordLine[]): Observed<InputRules> {
  const seen = of(records, 'input value');
  if (seen.length === 0) return unknown('the run sent no create or update of free-form values alone');
  const fieldOf = (operation: string, name: string) => `${operation.split('.')[0]}.${name}`;
  const taken = new Map<string, { forms: Set<string>; longest: number }>();
  for (const { value } of seen.filter((s) => s.value.taken))
    for (const [name, sent] of Object.entries(value.values)) {
      const field = fieldOf(value.operation, name);
      const known = taken.get(field) ?? { forms: new Set<string>(), longest: 0 };
      for (const form of sent.forms) known.forms.add(form);
      known.longest = Math.max(known.longest, sent.length);
      taken.set(field, known);
    }
  // Per field: the shortest value refused for its length, and each refused value's forms never taken.
  const refused = new Map<string, { shortest?: number; forms: ValueForm[][] }>();
  let first: (typeof seen)[number] | undefined;
  for (const line of seen.filter((s) => !s.value.taken)) {
    const unlike = Object.entries(line.value.values).filter(([name, sent]) => {
      const known = taken.get(fieldOf(line.value.operation, name));
      return !known || sent.length > known.longest || sent.forms.some((form) => !known.forms.has(form));
    });
    if (unlike.length !== 1) continue;
    const [name, sent] = unlike[0]!;
    const field = fieldOf(line.value.operation, name);
    const known = taken.get(field);
    const rule = refused.get(field) ?? { forms: [] };
    const forms = sent.forms.filter((form) => !known?.forms.has(form)) as ValueForm[];
    if (forms.length > 0) rule.forms.push(forms);
    else rule.shortest = Math.min(rule.shortest ?? Infinity, sent.length);
    refused.set(field, rule);
    first ??= line;
  }
  const rules: InputRules = { fields: {}, notStated: [] };
  for (const [field, { longest }] of [...taken].sort(([a], [b]) => a.localeCompare(b)))
    rules.fields[field] = { longestTaken: longest, refused: [] };
  for (const [field, rule] of [...refused].sort(([a], [b]) => a.localeCompare(b))) {
    const longest = taken.get(field)?.longest;
    const exact = rule.shortest !== undefined && longest !== undefined && rule.shortest === longest + 1;
    if (rule.shortest !== undefined && !exact)
      rules.notStated.push(
        longest === undefined
          ? `${field}: a value of ${rule.shortest} characters was refused, and none taken`
          : `${field}: values of ${longest} characters were taken and of ${rule.shortest} refused; the limit lies between`,
      );
    const stated = new Set(rule.forms.filter((forms) => forms.length === 1).map((forms) => forms[0]!));
    const unexplained = new Set(
      rule.forms.filter((forms) => !forms.some((form) => stated.has(form))).map((forms) => forms.join(', ')),
    );
    for (const forms of unexplained)
      rules.notStated.push(`${field}: a value with ${forms} was refused, for one of them or all`);
    const forms = (Object.keys(VALUE_FORMS) as ValueForm[]).filter((form) => stated.has(form));
    rules.fields[field] = {
      ...rules.fields[field],
      ...(exact ? { maxLength: longest } : {}),
      refused: forms,
    };
  }
  if (first) rules.status = first.value.status;
  return known(rules, (first ?? seen[0]!).seen);
}

function jsonBodiesOf(records: RecordLine[]): ServerProfile['jsonBodies'] & object {
  const probe = of(records, 'json body')[0];
  if (!probe) return unknown('the probe was not sent (the run stopped before it)');
  return 'unknown' in probe.value ? unknown(probe.value.unknown) : known(probe.value, probe.seen);
}

/** The reaction names the server took, and those it refused and never took. */
function reactionNamesOf(records: RecordLine[]): Observed<{ taken: string[]; refused: string[] }> {
  const seen = of(records, 'reaction name');
  if (seen.length === 0) return unknown('the run sent no reaction name alone in an update');
  const taken = [...new Set(seen.filter((s) => s.value.taken).map((s) => s.value.name))].sort();
  const refused = [...new Set(seen.filter((s) => !s.value.taken).map((s) => s.value.name))]
    .filter((name) => !taken.includes(name))
    .sort();
  const shown = seen.find((s) => !s.value.taken && refused.includes(s.value.name)) ?? seen[0]!;
  return known({ taken, refused }, shown.seen);
}

/** The fields beyond the document, but for those the profile says elsewhere: the next page, the error's message and code. */
function ownFieldsFrom(
  records: RecordLine[],
  paging: Observed<Paging>,
  errorBody: Observed<ErrorBody>,
): Observed<OwnFields> {
  const bodyKey = isKnown(paging) ? paging.value.bodyKey : undefined;
  const error = isKnown(errorBody) ? [errorBody.value.messageAt, errorBody.value.codeAt ?? ''] : [];
  const answers = [...of(records, 'success status'), ...of(records, 'error body')];
  if (answers.length === 0) return unknown('the run saw no answer of the API');
  const fields = ownFieldsOf(records, { page: bodyKey ? [bodyKey] : [], error });
  const first = of(records, 'own field')[0] ?? answers[0]!;
  return known(fields, first.seen);
}

/** Every choice of a profile, known or not: how many it states, of how many. */
export function countObserved(profile: ServerProfile): { observed: number; choices: number } {
  const choices: Observed<unknown>[] = [
    profile.contentType,
    ...Object.values(profile.successStatus),
    ...Object.values(profile.deleteAnswer),
    ...Object.values(profile.ids),
    profile.timestampUnit,
    ...Object.values(profile.order),
    profile.paging,
    profile.limit,
    profile.errors.body,
    ...Object.values(profile.errors.status),
    profile.avatarDefault,
    profile.reactions,
    profile.attachments,
    ...(profile.reactionNames ? [profile.reactionNames] : []),
    ...(profile.jsonBodies ? [profile.jsonBodies] : []),
    ...(profile.ownFields ? [profile.ownFields] : []),
    ...(profile.touchOnSend ? [profile.touchOnSend] : []),
    ...(profile.inputRules ? [profile.inputRules] : []),
  ];
  return { observed: choices.filter((c) => isKnown(c)).length, choices: choices.length };
}
