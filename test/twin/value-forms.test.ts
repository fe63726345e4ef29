import fs from 'node:fs';
import { FORMS_FILE } from '../../scripts/generate-copies';
import schema from '../../common/server-profile.schema.json';
import { formsOf, lengthOf, VALUE_FORMS } from '../../common/value-forms';

/**
 * The forms of a value (common/value-forms.ts) are part of the profile's format: the kit names the
 * forms of what it sent, a twin refuses by them, from a copy of the same file (src/ is built on its
 * own). The copy is the file, the schema names the same forms, and each form is the trait it says.
 */
describe('the forms of a value', () => {
  it("are the mock's as they are the kit's: its copy is the file, written by npm run generate", () => {
    const common = fs.readFileSync(require.resolve('../../common/value-forms.ts'), 'utf8');
    expect(fs.readFileSync(FORMS_FILE, 'utf8')).toBe(
      `// Written by scripts/generate-copies.ts from common/value-forms.ts (npm run generate): do not edit.\n${common}`,
    );
  });

  it('are the names the JSON Schema allows', () => {
    const rules = (schema as any).properties.inputRules.oneOf[0].properties.value.properties.fields;
    expect(rules.additionalProperties.properties.refused.items.enum).toEqual(Object.keys(VALUE_FORMS));
  });

  it('tell values apart as their names say', () => {
    expect(formsOf('')).toEqual(['empty']);
    // Every form is a trait of any string: a word is no URL, and has no leading +.
    expect(formsOf('plain')).toEqual(['no leading +', 'no absolute URL']);
    expect(formsOf('+1 (555) 010-2783')).toEqual([
      'spaces inside',
      'brackets, dots or dashes',
      'no absolute URL',
    ]);
    expect(formsOf('15550102783')).toEqual(['no leading +', 'no absolute URL']);
    expect(formsOf(' padded')).toEqual(['spaces at either end', 'no leading +', 'no absolute URL']);
    expect(formsOf('tab\there')).toEqual(['control characters', 'no leading +', 'no absolute URL']);
    expect(formsOf('http://cdn.example/a.png?size=2#top')).toEqual([
      'form characters',
      'no leading +',
      'brackets, dots or dashes',
      'an http URL',
      'a URL query',
      'a URL fragment',
    ]);
    expect(formsOf('https://cdn.example/a.png')).toEqual(['no leading +', 'brackets, dots or dashes']);
    expect(formsOf('Zoë')).toEqual(['letters outside ASCII', 'no leading +', 'no absolute URL']);
    expect(formsOf('山田 太郎')).toEqual([
      'spaces inside',
      'letters outside ASCII',
      'CJK characters',
      'no leading +',
      'no absolute URL',
    ]);
    expect(formsOf('שלום')).toEqual([
      'letters outside ASCII',
      'right-to-left script',
      'no leading +',
      'no absolute URL',
    ]);
    expect(formsOf('🎉')).toEqual(['emoji', 'no leading +', 'no absolute URL']);
    expect(formsOf('e\u0301')).toEqual(['combining marks', 'no leading +', 'no absolute URL']);
    expect(formsOf('<b>')).toEqual(['markup characters', 'no leading +', 'no absolute URL']);
    expect(formsOf('a+b')).toEqual(['form characters', 'no leading +', 'no absolute URL']);
    expect(lengthOf('👍🏽')).toBe(2);
  });
});
