/**
 * The checks of this suite can fail: each one, given a broken answer, a broken world or a
 * polluted prototype, reports it. Without this, a fuzz run that never fails proves nothing.
 */
import { World } from '../../src/store/world';
import { answerProblems, modelProblems, prototypeGuard, type RawResponse } from './support';

const answer = (status: number, text: string, headers: Record<string, string> = {}): RawResponse => ({
  status,
  text,
  headers: {
    'content-type': 'application/json; charset=utf-8',
    'x-content-type-options': 'nosniff',
    ...headers,
  },
});

const contact = (id: string, conversation: string) => ({
  id,
  username: id,
  phone_number: '1',
  avatar_url: 'https://example.com/a.png',
  display_name: null,
  conversation_id: conversation,
  last_active_at: null,
  created_at: 1000,
});

const message = (id: string, conversation: string, extra: Record<string, unknown> = {}) => ({
  id,
  conversation_id: conversation,
  message: 'hi',
  reactions: [],
  attachments: [],
  read_at: null,
  created_at: 1001,
  updated_at: null,
  ...extra,
});

describe('answerProblems', () => {
  it('passes a proper error answer', () => {
    const ok = answer(404, '{"type":"invalid_request","code":"not_found","message":"No such contact."}');
    expect(answerProblems(ok)).toEqual([]);
  });

  it.each([
    ['a 5xx', answer(500, '{"type":"api_error","code":"internal","message":"x"}'), /a 500 answer/],
    ['no error object', answer(400, 'Bad Request'), /without a JSON body/],
    [
      'a code outside the catalogue',
      answer(400, '{"type":"invalid_request","code":"oops","message":"x"}'),
      /not in the catalogue/,
    ],
    [
      'a code with another status',
      answer(400, '{"type":"invalid_request","code":"not_found","message":"x"}'),
      /answered with 400/,
    ],
    [
      'an extra field',
      answer(400, '{"type":"invalid_request","code":"parameter_invalid","message":"x","stack":"y"}'),
      /extra fields stack/,
    ],
    [
      'a stack frame',
      answer(400, '{"type":"invalid_request","code":"malformed_body","message":"at parse (/app/x.js:1:2)"}'),
      /internals/,
    ],
    [
      'a library name',
      answer(400, '{"type":"invalid_request","code":"malformed_body","message":"body-parser failed"}'),
      /internals/,
    ],
    ['X-Powered-By', answer(200, '{}', { 'x-powered-by': 'Express' }), /X-Powered-By/],
    ['no nosniff', answer(200, '{}', { 'x-content-type-options': '' }), /nosniff/],
    [
      'another Content-Type',
      answer(200, '{}', { 'content-type': 'text/html' }),
      /Content-Type is text\/html/,
    ],
  ])('reports %s', (_name, res, problem) => {
    expect(answerProblems(res).join('\n')).toMatch(problem);
  });

  it('lets an error message echo what the client itself sent', () => {
    const echo = answer(
      400,
      '{"type":"invalid_request","code":"parameter_unknown","message":"Received unknown parameter: express.","param":"express"}',
    );
    expect(answerProblems(echo, 'express=1')).toEqual([]);
    expect(answerProblems(echo, 'other=1')).not.toEqual([]);
  });
});

describe('modelProblems', () => {
  it('passes a sound world', () => {
    const world = World.fromData({
      contacts: [contact('C1', 'V1'), contact('C2', 'V2')],
      messages: [message('M1', 'V1'), message('M2', 'V2')],
    });
    expect(modelProblems(world)).toEqual([]);
  });

  it('reports a message whose conversation has no contact', () => {
    const world = World.fromData({ contacts: [contact('C1', 'V1')], messages: [message('M1', 'V9')] });
    expect(modelProblems(world).join('\n')).toMatch(/M1 is in conversation V9, which has no contact/);
  });

  it('reports ids used twice across kinds (C6)', () => {
    const world = World.fromData({ contacts: [contact('C1', 'V1')], messages: [message('V1', 'V1')] });
    expect(modelProblems(world).join('\n')).toMatch(/reuses an id/);
  });

  it('reports a stored object with a field beyond the documented ones', () => {
    const world = World.fromData({
      contacts: [contact('C1', 'V1')],
      messages: [
        message('M1', 'V1', {
          attachments: [
            {
              id: 'A1',
              message_id: 'M1',
              filename: 'a',
              file_url: 'https://a',
              file_type: 'a/b',
              file_size: null,
              created_at: 1,
              admin: true,
            },
          ],
        }),
      ],
    });
    expect(modelProblems(world).join('\n')).toMatch(/attachment A1 has fields/);
  });

  it('reports a malformed reaction', () => {
    const world = World.fromData({
      contacts: [contact('C1', 'V1')],
      messages: [message('M1', 'V1', { reactions: [{ heart: ['a', 'a'] }] })],
    });
    expect(modelProblems(world).join('\n')).toMatch(/repeats a reaction name or a username/);
  });
});

describe('prototypeGuard', () => {
  it('reports a property added to, or replaced on, a built-in prototype, and nothing otherwise', () => {
    const guard = prototypeGuard();
    expect(guard.changes()).toEqual([]);
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.polluted = 1;
      expect(guard.changes()).toEqual(['Object.prototype.polluted']);
    } finally {
      delete proto.polluted;
    }
    const original = Array.prototype.includes;
    try {
      Array.prototype.includes = () => true;
      expect(guard.changes()).toEqual(['Array.prototype.includes']);
    } finally {
      Array.prototype.includes = original;
    }
    expect(guard.changes()).toEqual([]);
  });
});
