import { idsOf } from '../../contract-tests/profile/build';
import { idFormatOf } from '../../contract-tests/profile/shapes';
import type { RecordLine } from '../../contract-tests/http/records';

/**
 * The format of a server's ids, as the kit infers it from those it saw: the smallest alphabet that
 * holds them all (digits ⊂ hex ⊂ letters and digits), never unknown because some ids happen to fall
 * in a smaller one; their prefix, their length or its range, the version of UUIDs.
 */
const lines = (ids: unknown[]): RecordLine[] =>
  ids.map((id, i) => ({
    kind: 'profile',
    key: 'id format',
    value: { kind: 'contact', format: idFormatOf(id)! },
    seen: `POST /v1/contacts → 201 (${i})`,
  }));
const formatOf = (...ids: unknown[]) => idsOf(lines(ids), 'contact');
const valueOf = (...ids: unknown[]) => {
  const observed = formatOf(...ids);
  return 'value' in observed ? observed.value : observed;
};

describe('the format of ids', () => {
  it('is the smallest alphabet that holds every id seen', () => {
    expect(formatOf('1234', '5678')).toEqual({
      value: { kind: 'numeric', prefix: '', json: 'string', length: 4 },
      seen: 'POST /v1/contacts → 201 (0)',
    });
    // Hex ids, one of them all digits by chance: hex, shown by the first id with a letter.
    expect(formatOf('40213377', '5f3a9c0e', '7b12d446')).toEqual({
      value: { kind: 'hex', prefix: '', json: 'string', length: 8 },
      seen: 'POST /v1/contacts → 201 (1)',
    });
    expect(valueOf('40213377', '5f3a9c0e', 'Zq81xPw0')).toMatchObject({ kind: 'alphanumeric' });
    expect(valueOf('5f3a9c0e', '0F8FAD5B')).toMatchObject({ kind: 'alphanumeric' });
  });

  it('says the range of lengths, or the one length', () => {
    expect(valueOf('5f3a9c0e', '5f3a9c0e7b', '5f3a9c0e7b12')).toEqual({
      kind: 'hex',
      prefix: '',
      json: 'string',
      minLength: 8,
      maxLength: 12,
    });
    expect(valueOf('msg_xy12', 'msg_zw34')).toEqual({
      kind: 'alphanumeric',
      prefix: 'msg_',
      json: 'string',
      length: 4,
    });
  });

  it('tells UUIDs and their version, and UUIDs beside other ids as other', () => {
    const v4 = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const v7 = '018f3c1e-7b2a-7cc0-9a53-1d2e3f4a5b6c';
    expect(valueOf(v4, '7c9e6679-7425-40de-944b-e07fc1f90ae7')).toEqual({
      kind: 'uuid',
      prefix: '',
      json: 'string',
      version: 4,
    });
    expect(valueOf(v4, v7)).toEqual({ kind: 'uuid', prefix: '', json: 'string' });
    expect(valueOf(v4, '5f3a9c0e')).toMatchObject({ kind: 'other' });
  });

  it('is unknown only where prefixes or JSON types differ, saying so', () => {
    expect(formatOf('ct_ab12', 'cx_ab12')).toEqual({
      unknown: expect.stringContaining("the contact ids' prefixes or JSON types differed"),
    });
    expect(formatOf(1234, '1235')).toEqual({
      unknown: expect.stringContaining("the contact ids' prefixes or JSON types differed"),
    });
  });
});
