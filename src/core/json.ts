const texts = new WeakMap<object, string>();

/**
 * `JSON.stringify`, except that a frozen object is serialized once and its text kept: the store
 * hands out the same frozen view of a record for as long as the record is unchanged
 * (store/views.ts), so a page of ten contacts is ten cached texts joined, not ten objects walked.
 * Plain objects and arrays around them are walked here, with JSON.stringify's rules: a property
 * whose value has no JSON form (undefined, a function) is left out, and in an array it is null;
 * anything else (a class instance, an object with `toJSON`) is left to JSON.stringify.
 */
export function toJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Object.isFrozen(value)) {
    let text = texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      texts.set(value, text);
    }
    return text;
  }
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i === 0 ? '' : ','}${toJson(value[i]) ?? 'null'}`;
    return `${text}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value)
    return JSON.stringify(value);
  let text = '{';
  for (const key of Object.keys(value)) {
    const field = toJson((value as Record<string, unknown>)[key]);
    if (field === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${field}`;
  }
  return `${text}}`;
}
