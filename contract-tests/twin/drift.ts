import { isObject, type Json } from '../http/exchange';

/**
 * What changed in a server since its profile was written (`messaging-contract twin check`): each
 * choice of the profile against the same choice observed again, with the exchange that shows it
 * now. A choice is a leaf `{value, seen}` or `{unknown}` of the profile (common/server-profile.ts),
 * named by its path (`ids.contact`, `successStatus.contacts.create`).
 */
type Observed = { value: unknown; seen: string } | { unknown: string };

export interface Drift {
  /** Known in both, with another value now; or unknown in the profile and observed now. */
  changed: { choice: string; before: unknown; now: unknown; seen: string }[];
  /** Known in the profile, not observed again: what the server does there now is not known. */
  unobserved: { choice: string; before: unknown; why: string }[];
  /** Choices of the profile that were observed again with the same value. */
  same: number;
  /** Choices in all. */
  choices: number;
}

const isObserved = (value: unknown): value is Observed =>
  isObject(value) && (('value' in value && 'seen' in value) || 'unknown' in value);

/** The profile's choices by path; what describes the run (`server`, `version`) is no choice. */
function choicesOf(profile: Json): Map<string, Observed> {
  const found = new Map<string, Observed>();
  const walk = (at: unknown, path: string[]) => {
    if (isObserved(at)) found.set(path.join('.'), at);
    else if (isObject(at)) for (const [key, inner] of Object.entries(at)) walk(inner, [...path, key]);
  };
  for (const [key, value] of Object.entries(profile))
    if (!['$schema', 'version', 'server'].includes(key)) walk(value, [key]);
  return found;
}

/** JSON with sorted keys: the same value written in another key order is the same. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    isObject(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );

/** The server's own fields without the values of examples, which are whichever a run saw first. */
const withoutExamples = (fields: unknown): unknown =>
  isObject(fields)
    ? Object.fromEntries(
        Object.entries(fields).map(([where, list]) => [
          where,
          Array.isArray(list)
            ? list.map((field) =>
                isObject(field) && field.as === 'example' ? { ...field, value: undefined } : field,
              )
            : list,
        ]),
      )
    : fields;

/**
 * Reaction names: which the kit tried depends on the run (its random sequences draw some); a
 * change is a name taken in one run and refused in the other.
 */
function sameNames(before: unknown, now: unknown): boolean {
  const names = (value: unknown, key: 'taken' | 'refused'): string[] =>
    isObject(value) && Array.isArray(value[key]) ? (value[key] as string[]) : [];
  const crossed = (a: unknown, b: unknown) =>
    names(a, 'taken').some((name) => names(b, 'refused').includes(name));
  return !crossed(before, now) && !crossed(now, before);
}

/**
 * Input rules as the twin takes them: each field's limit and refused forms, and their status. How
 * long the longest value taken was, and what could not be stated, follow the run's values.
 */
const statedRules = (rules: unknown): unknown => {
  if (!isObject(rules) || !isObject(rules.fields)) return rules;
  const fields = Object.entries(rules.fields)
    .map(([field, rule]) => [
      field,
      isObject(rule) ? { maxLength: rule.maxLength, refused: rule.refused } : rule,
    ])
    .filter(
      ([, rule]) => !isObject(rule) || rule.maxLength !== undefined || (rule.refused as unknown[])?.length,
    );
  return { fields: Object.fromEntries(fields), status: fields.length > 0 ? rules.status : undefined };
};

/**
 * Whether a value observed now is the one the profile holds. The lengths of ids are a sample of the
 * ids a run saw: a range seen now that lies within the profile's is the same; so are the values of
 * the examples of the server's own fields, reaction names that no run saw both taken and refused, an
 * order's ties where one run saw none, and input rules that state the same.
 */
function sameChoice(choice: string, before: unknown, now: unknown): boolean {
  if (canonical(before) === canonical(now)) return true;
  if (choice === 'ownFields') return canonical(withoutExamples(before)) === canonical(withoutExamples(now));
  if (choice === 'reactionNames') return sameNames(before, now);
  if (choice === 'inputRules') return canonical(statedRules(before)) === canonical(statedRules(now));
  // Ties show where a page held two of the run's records of one created_at: a run without them says nothing of them.
  if (choice.startsWith('order.') && isObject(before) && isObject(now) && (!before.ties || !now.ties))
    return canonical({ ...before, ties: undefined }) === canonical({ ...now, ties: undefined });
  if (!choice.startsWith('ids.') || !isObject(before) || !isObject(now)) return false;
  const rest = (id: Json) =>
    canonical({ ...id, length: undefined, minLength: undefined, maxLength: undefined });
  const range = (id: Json) => [id.length ?? id.minLength, id.length ?? id.maxLength] as [unknown, unknown];
  const [low, high] = range(before);
  const [min, max] = range(now);
  return (
    rest(before) === rest(now) &&
    typeof low === 'number' &&
    typeof high === 'number' &&
    typeof min === 'number' &&
    typeof max === 'number' &&
    min >= low &&
    max <= high
  );
}

export function driftOf(before: Json, now: Json): Drift {
  const then = choicesOf(before);
  const seen = choicesOf(now);
  const drift: Drift = { changed: [], unobserved: [], same: 0, choices: 0 };
  for (const [choice, old] of then) {
    drift.choices++;
    const fresh = seen.get(choice);
    if ('value' in old) {
      if (!fresh || !('value' in fresh))
        drift.unobserved.push({ choice, before: old.value, why: fresh?.unknown ?? 'the run did not say' });
      else if (sameChoice(choice, old.value, fresh.value)) drift.same++;
      else drift.changed.push({ choice, before: old.value, now: fresh.value, seen: fresh.seen });
    } else if (fresh && 'value' in fresh)
      drift.changed.push({ choice, before: undefined, now: fresh.value, seen: fresh.seen });
    else drift.same++;
  }
  return drift;
}

const shown = (value: unknown) => (value === undefined ? 'unknown' : JSON.stringify(value));

/** The drift in words, a line a choice that moved, and the count. */
export function driftLines(drift: Drift): string[] {
  return [
    ...drift.changed.map(
      (c) => `  changed: ${c.choice}: ${shown(c.before)} → ${shown(c.now)} (seen: ${c.seen})`,
    ),
    ...drift.unobserved.map((u) => `  not observed again: ${u.choice} (was ${shown(u.before)}): ${u.why}`),
    `${drift.same} of ${drift.choices} choices as the profile says; ${drift.changed.length} changed; ${drift.unobserved.length} not observed again.`,
  ];
}
