import { contacts } from './contacts';
import { control } from './control';
import { messages } from './messages';
import { pagingParameters, recordSchemas, type Schema } from './schemas';
import { MAX_DELAY_MS } from '../input/limits';

/**
 * The OpenAPI 3.1 description of the API as this mock implements it: the document's endpoints
 * and fields, plus conventions C1-C20 (status codes, error object, cursors, field rules). Built
 * from the same constants as the code (error catalogue, field rules, limits), so the two cannot
 * drift apart. A twin's conventions make theirs from it (src/twin/layer.ts, src/twin/document.ts).
 */
export function openApiDocument(): Record<string, unknown> {
  const parts = [contacts(), messages(), control()];
  const document = {
    openapi: '3.1.0',
    info: info(),
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'contacts', description: 'The user’s contacts, each with the one conversation held with it.' },
      { name: 'messages', description: 'The messages of the conversations with the contacts.' },
      { name: 'mock', description: 'The mock’s own control routes.' },
    ],
    paths: merge(parts.map((part) => part.paths)),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Any non-empty token, unless the mock was started with --token.',
        },
      },
      parameters: merge([pagingParameters(), ...parts.map((part) => part.parameters)]),
      schemas: merge([recordSchemas(), ...parts.map((part) => part.schemas)]),
    },
  };
  return document;
}

function info(): Schema {
  return {
    title: 'Messaging API (mock)',
    version: '1.0.0',
    // The mock's own, as the document is: the package's name and its license (package.json).
    contact: { name: 'messaging-api-mock' },
    license: { name: 'MIT', identifier: 'MIT' },
    description:
      'Contacts and the messages of the conversations with them, as the mock serves them. Every /v1 operation ' +
      'requires `Authorization: Bearer <token>`; each token is a user with its own world. The `Prefer` header ' +
      `switches simulated errors (\`code=500\`) and delays (\`delay=1500\`, at most ${MAX_DELAY_MS} ms).`,
  };
}

/** One map of the parts' maps; a name two parts define would hide one of them, so it is refused. */
function merge(maps: (Record<string, Schema> | undefined)[]): Record<string, Schema> {
  const merged: Record<string, Schema> = {};
  for (const [name, value] of maps.flatMap((map) => Object.entries(map ?? {}))) {
    if (name in merged) throw new Error(`The OpenAPI document defines ${name} twice.`);
    merged[name] = value;
  }
  return merged;
}
