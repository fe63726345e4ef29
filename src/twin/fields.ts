import type { OwnField } from './profile';

/**
 * The fields a twin's server adds to what the document lists, filled as the profile explains each
 * (src/twin/profile.ts OwnField): into a record, a page or a refusal, after the twin's own
 * rewriting. A field whose value the answer cannot tell (the parameter of a refusal about none) is
 * left out, as the server leaves it out.
 */
type Json = Record<string, unknown>;

export interface OwnFacts {
  /** The record the field belongs to (its id, its fields). */
  record?: Json;
  /** The request's origin (`http://127.0.0.1:4010`), for a URL of the record. */
  origin: string;
  /** A page's: the request's parameter as in force, the items of the whole list, the previous page. */
  param?: (name: string) => unknown;
  count?: number;
  prev?: string | null;
  /** A refusal's: the parameter it is about, and its status. */
  refused?: string;
  status?: number;
}

export function fillOwn(fields: readonly OwnField[] | undefined, target: Json, facts: OwnFacts): void {
  for (const field of fields ?? []) {
    const value = valueOf(field, facts);
    if (value !== undefined) setPath(target, field.path, value);
  }
}

function valueOf(field: OwnField, facts: OwnFacts): unknown {
  switch (field.as) {
    case 'constant':
    case 'example':
      return structuredClone(field.value);
    case 'self': {
      const id = facts.record?.id;
      if (id === undefined || id === null) return undefined;
      return field.template.replace('{origin}', facts.origin).replace('{id}', encodeURIComponent(String(id)));
    }
    case 'copy':
      return facts.record?.[field.of];
    case 'param': {
      const value = facts.param?.(field.param);
      if (value === undefined) return structuredClone(field.absent);
      return typeof field.absent === 'number' && typeof value === 'string' && /^-?[0-9]+$/.test(value)
        ? Number(value)
        : value;
    }
    case 'count':
      return facts.count;
    case 'prev':
      return facts.prev;
    case 'param-refused':
      return facts.refused;
    case 'status':
      return facts.status;
  }
}

/** Sets `a.b.0.c` in `target`, making objects and arrays (for numeric keys) on the way. */
export function setPath(target: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let at: Record<string, unknown> | unknown[] = target;
  keys.forEach((key, i) => {
    const last = i === keys.length - 1;
    const slot = at as Record<string, unknown>;
    if (last) slot[key] = value;
    else {
      if (slot[key] === null || typeof slot[key] !== 'object')
        slot[key] = /^[0-9]+$/.test(keys[i + 1]!) ? [] : {};
      at = slot[key] as Record<string, unknown>;
    }
  });
}
