import { errors } from '../errors';
import { MAX_DELAY_MS } from '../input/limits';

export interface Latency {
  min: number;
  max: number;
}

/** `--latency 300` or `--latency 200-800` (milliseconds). */
export function parseLatency(text: string): Latency {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  const min = match ? Number(match[1]) : NaN;
  const max = match?.[2] !== undefined ? Number(match[2]) : min;
  if (!match || min > max || max > MAX_DELAY_MS) {
    throw new Error(
      `must be milliseconds MS or a range MIN-MAX, at most ${MAX_DELAY_MS}, e.g. 300 or 200-800.`,
    );
  }
  return { min, max };
}

interface Preferences {
  code?: number;
  delay?: number;
}

/**
 * The `Prefer` header (RFC 7240), as Prism reads it: `Prefer: code=500` answers that status with
 * a proper error object, `Prefer: delay=1500` waits first; they combine (`code=503, delay=2000`).
 * Other preferences are ignored, as RFC 7240 §2 asks of preferences a server does not know.
 */
function parsePrefer(header: string | undefined): Preferences {
  const preferences: Preferences = {};
  if (!header) return preferences;
  for (const part of header.split(/[,;]/)) {
    const [rawName, rawValue] = part.split('=', 2).map((s) => s?.trim().replace(/^"(.*)"$/, '$1'));
    const name = rawName?.toLowerCase();
    if (name !== 'code' && name !== 'delay') continue;
    const value = Number(rawValue);
    if (name === 'code') {
      if (!/^\d{3}$/.test(rawValue ?? '') || value < 400 || value > 599) {
        throw errors.invalid(
          'Prefer',
          `code must be an error status from 400 to 599, e.g. "Prefer: code=500".`,
        );
      }
      preferences.code = value;
    } else {
      if (!/^\d{1,5}$/.test(rawValue ?? '') || value > MAX_DELAY_MS) {
        throw errors.invalid(
          'Prefer',
          `delay must be milliseconds from 0 to ${MAX_DELAY_MS}, e.g. "Prefer: delay=1500".`,
        );
      }
      preferences.delay = value;
    }
  }
  return preferences;
}

/**
 * Per-request switches for showing loading and error states without changing client code:
 * how long to wait first (the configured latency plus `Prefer: delay`), and the status to answer
 * instead of the real answer (`Prefer: code`, which then changes nothing). `applied` is the
 * `Preference-Applied` header, when any preference was.
 */
export function switchesOf(
  prefer: string | undefined,
  latency: Latency | undefined,
): { wait: number; code: number | undefined; applied: string | undefined } {
  const preferences = prefer === undefined ? {} : parsePrefer(prefer);
  const applied = Object.entries(preferences).map(([k, v]) => `${k}=${v}`);
  const wait =
    (latency ? latency.min + Math.floor(Math.random() * (latency.max - latency.min + 1)) : 0) +
    (preferences.delay ?? 0);
  return { wait, code: preferences.code, applied: applied.length > 0 ? applied.join(', ') : undefined };
}
