import fc from 'fast-check';
import { toJson } from '../src/core/json';

/** Any value, with some parts frozen: the serializer caches frozen objects' texts. */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null)),
    fc.constant(undefined),
    fc.constant(() => 1),
    fc.date({ noInvalidDate: true }),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }).chain((a) => fc.constantFrom(a, Object.freeze(a))),
  object: fc
    .dictionary(fc.string(), tie('value'), { maxKeys: 5 })
    .chain((o) => fc.constantFrom(o, Object.freeze(o), Object.assign(Object.create(null) as object, o))),
}));

describe('toJson (the answers’ serializer)', () => {
  it('writes exactly what JSON.stringify writes, for any value', () => {
    fc.assert(
      fc.property(values.value, (value) => {
        expect(toJson(value)).toBe(JSON.stringify(value));
        // A second time, from the cache where there is one.
        expect(toJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves objects with toJSON and class instances to JSON.stringify', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly hidden?: number,
      ) {}
    }
    const value = { at: new Date(0), point: new Point(1), custom: { toJSON: () => 'custom' } };
    expect(toJson(value)).toBe(JSON.stringify(value));
  });
});
