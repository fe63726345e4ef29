/**
 * The forms a free-form string of the document can take (its formats are not shown): named traits
 * of a value, such as spaces inside it, a letter outside ASCII, or a URL over http. The contract kit
 * names the forms of each value it sent, taken or refused (`--profile-out`, `inputRules`); a twin
 * refuses a value of a form its server refused and never took. One vocabulary for both, as the
 * profile's format is: a form is a trait anyone can test, not a reading of the document. The mock
 * gets a copy of this file as it is (scripts/generate-copies.ts, src/twin/value-forms.generated.ts).
 *
 * A value has many forms at once; the kit states a refused form only where the refusal has no other
 * explanation (every other form of the value was seen taken), so that a twin refuses no more than
 * its server did.
 */
export const VALUE_FORMS = {
  empty: (v: string) => v === '',
  'spaces at either end': (v: string) => /^\s|\s$/u.test(v),
  'spaces inside': (v: string) => /\S\p{Zs}+\S/u.test(v),
  'control characters': (v: string) => /\p{Cc}/u.test(v),
  'letters outside ASCII': (v: string) =>
    /[^\p{ASCII}]/u.test(v) && /\p{L}/u.test(v.replace(/\p{ASCII}/gu, '')),
  'right-to-left script': (v: string) => /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/u.test(v),
  'CJK characters': (v: string) => /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/u.test(v),
  emoji: (v: string) => /\p{Extended_Pictographic}/u.test(v),
  'combining marks': (v: string) => /\p{M}/u.test(v),
  'markup characters': (v: string) => /[<>"'\\]/u.test(v),
  'form characters': (v: string) => /[&=%[\]]/u.test(v) || /.\+/u.test(v),
  'no leading +': (v: string) => v !== '' && !v.startsWith('+'),
  'brackets, dots or dashes': (v: string) => /[().-]/u.test(v),
  'an http URL': (v: string) => /^http:\/\//iu.test(v),
  'no absolute URL': (v: string) => v !== '' && !/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+/iu.test(v),
  'a URL query': (v: string) => /^[a-z][a-z0-9+.-]*:\/\/[^?#]*\?/iu.test(v),
  'a URL fragment': (v: string) => /^[a-z][a-z0-9+.-]*:\/\/[^#]*#/iu.test(v),
} as const;

export type ValueForm = keyof typeof VALUE_FORMS;

/** The forms of `value`, in the order of VALUE_FORMS. */
export function formsOf(value: string): ValueForm[] {
  return (Object.keys(VALUE_FORMS) as ValueForm[]).filter((form) => VALUE_FORMS[form](value));
}

/** A value's length in characters (code points), as the profile counts it. */
export const lengthOf = (value: string): number => [...value].length;

/**
 * The fields the profile's input rules are about: the free-form strings of creates and updates,
 * by resource and name, as the parameters are sent.
 */
export const RULED_FIELDS = {
  contacts: ['username', 'display_name', 'avatar_url', 'phone_number'],
  messages: ['message'],
} as const;
