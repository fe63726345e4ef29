import { is4xx } from '../http/http';
import type { Done } from '../model/operations';
import { RuleFailure } from '../model/harness';
import { config } from '../http/config';

/**
 * The classes of value a free-form string of the document can hold (2.5: its formats and limits
 * are not shown). Every operation that takes such a field is sent each class: a server may refuse
 * a class (4xx, an answer), but a value it takes must come back as sent, in every view, or changed
 * without loss (rules/fields.ts).
 */
export interface ValueClass {
  name: string;
  value: string;
}

export const VALUE_CLASSES: readonly ValueClass[] = [
  { name: 'ASCII in mixed case', value: 'Plain ASCII MiXeD 42' },
  { name: 'accented Latin', value: 'Zoë Ångström-Núñez, déjà vu' },
  { name: 'CJK', value: '山田太郎 李小龍 今日は' },
  { name: 'emoji with a modifier', value: 'Party 🎉 👍🏽' },
  { name: 'joined emoji', value: 'Family 👩‍👩‍👧 🏳️‍🌈' },
  { name: 'right-to-left', value: 'محمد علي · שלום' },
  { name: 'combining marks', value: 'e\u0301te\u0301 n\u0303' },
  { name: 'form-encoding characters', value: 'a & b = c + d % e [f] g' },
  // Alone: beside a bare %, a second decoding would fail and keep the text as it was.
  { name: 'text that looks percent-encoded', value: 'code %41 and %2B%26 as typed' },
  { name: 'markup and escapes', value: '<b>Tom & "Jerry"</b> it\'s 100% \\ ok' },
  { name: 'a newline and a tab', value: 'line one\nline two\tend' },
  { name: 'spaces at both ends', value: '  spaced at both ends  ' },
];

/** Characters to make long values of: a cut, a repeat or a lost stretch shows in any of them. */
const FILLER = 'Lorem ipsum dolor sit amet, 0123456789; ';

/** A value of exactly `length` characters, starting with `prefix`. */
export function longValue(prefix: string, length: number, filler = FILLER): string {
  let out = prefix;
  while (out.length < length) out += filler;
  return out.slice(0, length);
}

/** The probe's largest value: the document shows no limit, so the kit stops here. */
export const LONGEST = 10_000;

/**
 * Long values, probed upward: `start` characters, doubled up to LONGEST or to the first value
 * the server refuses. Each value taken is judged by the caller's model; a refusal ends the probe
 * (it is an answer: the server's limit lies below), anything but a 2xx or 4xx fails the rule.
 * Returns the lengths taken and the first one refused, for the server profile; when the run writes
 * one, the shortest refused is one more than the longest taken (found by halving).
 */
export async function probeUpward(
  start: number,
  apply: (length: number) => Promise<Done>,
): Promise<{ taken: number[]; refused?: number }> {
  const taken: number[] = [];
  for (let length = start; ; length = Math.min(length * 2, LONGEST)) {
    const done = await apply(length);
    if (!done.ok) {
      if (!is4xx(done.exchange))
        throw new RuleFailure(
          `a value of ${length} characters was answered ${done.exchange.status}`,
          done.exchange,
        );
      // For a profile, the limit exactly: halves between the longest taken and the first refused.
      return config.profileOut && taken.length > 0
        ? narrowed(taken, length, apply)
        : { taken, refused: length };
    }
    taken.push(length);
    if (length === LONGEST) return { taken };
  }
}

/** Halves the lengths between the longest taken and `refused` until they are neighbours. */
async function narrowed(
  taken: number[],
  refused: number,
  apply: (length: number) => Promise<Done>,
): Promise<{ taken: number[]; refused: number }> {
  let [low, high] = [Math.max(...taken), refused];
  while (high - low > 1) {
    const length = Math.floor((low + high) / 2);
    const done = await apply(length);
    if (done.ok) {
      taken.push(length);
      low = length;
    } else if (is4xx(done.exchange)) high = length;
    else
      throw new RuleFailure(
        `a value of ${length} characters was answered ${done.exchange.status}`,
        done.exchange,
      );
  }
  return { taken, refused: high };
}
