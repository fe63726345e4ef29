import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import request from 'supertest';
import { openApiDocument } from '../../src/openapi';
import { api, createContact, makeApp, sendMessage } from '../helpers';

type Operation = { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> };

const document = openApiDocument();
const paths = document.paths as Record<string, Record<string, Operation>>;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...document, $id: 'openapi' });

/** Validates a real answer against the schema the document gives for that operation and status. */
function expectDocumented(template: string, method: string, res: request.Response): void {
  const operation = paths[template]?.[method];
  expect(operation).toBeDefined();
  const response = operation!.responses[String(res.status)];
  if (response === undefined)
    throw new Error(
      `${method.toUpperCase()} ${template} answered ${res.status}, which the document does not list`,
    );
  if (response.content?.['application/json']?.schema === undefined) {
    expect(res.text ?? '').toBe('');
    return;
  }
  const pointer = [
    'paths',
    template,
    method,
    'responses',
    String(res.status),
    'content',
    'application/json',
    'schema',
  ]
    .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/');
  const check = ajv.getSchema(`openapi#/${pointer}`)!;
  if (!check(res.body))
    throw new Error(`${method.toUpperCase()} ${template} ${res.status}: ${ajv.errorsText(check.errors)}`);
}

describe('GET /openapi.json', () => {
  it('serves the document without a token', async () => {
    const res = await request(makeApp()).get('/openapi.json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result).toEqual(expect.objectContaining({ valid: true }));
  });

  it('is refused by the validator when broken (so the check above can fail)', async () => {
    const broken = structuredClone(document) as { paths: Record<string, Record<string, Partial<Operation>>> };
    delete (broken.paths['/v1/contacts']!.get!.responses!['200'] as { description?: string }).description;
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it('lists every route the mock serves, and the mock serves every route it lists', async () => {
    const app = makeApp();
    for (const [template, operations] of Object.entries(paths)) {
      for (const method of Object.keys(operations).filter((m) => m !== 'parameters')) {
        const path = template.replace('{id}', 'AAAAAAAAAAAAAAAA');
        const res = await (api(app) as unknown as Record<string, (p: string) => request.Test>)[method]!(path);
        expect(res.body.code).not.toBe('route_not_found');
        expect(res.body.code).not.toBe('method_not_allowed');
      }
    }
  });
});

describe('The document agrees with what the mock answers', () => {
  it('for every contact operation, success and refusal', async () => {
    const app = makeApp();
    const a = api(app);
    expectDocumented('/v1/contacts', 'get', await a.get('/v1/contacts?limit=3'));
    expectDocumented('/v1/contacts', 'get', await a.get('/v1/contacts?limit=0'));
    const created = await a.post('/v1/contacts').type('form').send({ username: 'oa', phone_number: '12' });
    expectDocumented('/v1/contacts', 'post', created);
    expectDocumented(
      '/v1/contacts',
      'post',
      await a.post('/v1/contacts').type('form').send({ username: 'oa' }),
    );
    expectDocumented(
      '/v1/contacts',
      'post',
      await a.post('/v1/contacts').set('Content-Type', 'text/plain').send('x'),
    );
    expectDocumented('/v1/contacts', 'get', await request(app).get('/v1/contacts'));
    const id = created.body.id;
    expectDocumented('/v1/contacts/{id}', 'get', await a.get(`/v1/contacts/${id}`));
    expectDocumented('/v1/contacts/{id}', 'get', await a.get('/v1/contacts/nope'));
    expectDocumented(
      '/v1/contacts/{id}',
      'put',
      await a.put(`/v1/contacts/${id}`).type('form').send({ display_name: '' }),
    );
    expectDocumented(
      '/v1/contacts/{id}',
      'put',
      await a.put(`/v1/contacts/${id}`).type('form').send({ username: 'x' }),
    );
    expectDocumented('/v1/contacts/{id}', 'delete', await a.delete(`/v1/contacts/${id}`));
    expectDocumented('/v1/contacts/{id}', 'delete', await a.delete(`/v1/contacts/${id}`));
  });

  it('for every message operation, success and refusal', async () => {
    const app = makeApp();
    const a = api(app);
    const contact = await createContact(app);
    const sent = await a.post('/v1/messages').send({
      conversation_id: contact.conversation_id,
      message: 'hi',
      attachments: [{ filename: 'a', file_url: 'https://e.com/a' }],
    });
    expectDocumented('/v1/messages', 'post', sent);
    expectDocumented(
      '/v1/messages',
      'post',
      await a.post('/v1/messages').send({ conversation_id: 'nope', message: 'x' }),
    );
    expectDocumented('/v1/messages', 'get', await a.get('/v1/messages?limit=100'));
    expectDocumented(
      '/v1/messages',
      'get',
      await a.get(`/v1/messages?conversation_id=${contact.conversation_id}`),
    );
    expectDocumented('/v1/messages', 'get', await a.get('/v1/messages?conversation_id=nope'));
    const id = sent.body.id;
    await sendMessage(app, contact.conversation_id);
    expectDocumented('/v1/messages/{id}', 'get', await a.get(`/v1/messages/${id}`));
    expectDocumented(
      '/v1/messages/{id}',
      'put',
      await a.put(`/v1/messages/${id}`).type('form').send('reactions[heart][]=x&message=y'),
    );
    expectDocumented(
      '/v1/messages/{id}',
      'put',
      await a.put(`/v1/messages/${id}`).type('form').send('reactions[Bad Name][]=x'),
    );
    expectDocumented('/v1/messages/{id}', 'delete', await a.delete(`/v1/messages/${id}`));
    expectDocumented('/v1/messages/{id}', 'get', await a.get(`/v1/messages/${id}`));
  });

  it('for the control routes', async () => {
    const app = makeApp();
    const a = api(app);
    await a.get('/v1/contacts');
    const state = await a.get('/__mock/state');
    expectDocumented('/__mock/state', 'get', state);
    expectDocumented('/__mock/state', 'put', await a.put('/__mock/state').send(state.body));
    expectDocumented('/__mock/state', 'put', await a.put('/__mock/state').send({ contacts: 1 }));
    const full = await api(makeApp({ maxWorldBytes: 1024 }))
      .put('/__mock/state')
      .send(state.body)
      .expect(409);
    expectDocumented('/__mock/state', 'put', full);
    expectDocumented('/__mock/requests', 'get', await a.get('/__mock/requests'));
    expectDocumented('/__mock/requests', 'get', await a.get('/__mock/requests?since=1'));
    expectDocumented('/__mock/switches', 'get', await a.get('/__mock/switches'));
    expectDocumented(
      '/__mock/switches',
      'put',
      await a.put('/__mock/switches').send({ latency_ms: 0, errors: { status: 503, count: 2 } }),
    );
    expectDocumented('/__mock/switches', 'get', await a.get('/__mock/switches'));
    expectDocumented('/__mock/switches', 'put', await a.put('/__mock/switches').send({ latency_ms: -1 }));
    expectDocumented('/__mock/switches', 'delete', await a.delete('/__mock/switches'));
    expectDocumented('/__mock/reset', 'post', await a.post('/__mock/reset'));
  });

  it('catches an answer that breaks its schema (so the checks above can fail)', async () => {
    const res = await api(makeApp()).get('/v1/contacts?limit=1');
    res.body.data[0].display_name = 42;
    expect(() => expectDocumented('/v1/contacts', 'get', res)).toThrow(/display_name/);
  });
});
