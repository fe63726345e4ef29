import { errors, type ApiError } from '../errors';
import * as fields from '../input/operations';
import type { Params } from '../input/params';
import type { World, WorldData, WorldOptions } from '../store/world';
import { json, type CoreAnswer } from './answer';
import type { RequestHeaders } from './body';

type Kind = 'contacts' | 'messages';
type Operation = `${Kind}.${'list' | 'create' | 'retrieve' | 'update'}`;

/** What a delete answers: its status, and no body, the deleted record, or a marker of other keys. */
interface DeleteAnswer {
  status: number;
  body: 'empty' | 'object' | 'marker';
  keys?: readonly string[];
}

/** The readers of the four writes' parameters (input/operations.ts), each with its limits. */
type WriteReaders = Pick<typeof fields, 'contactCreate' | 'contactUpdate' | 'messageSend' | 'messageUpdate'>;

/**
 * The conventions every API answer goes through: where the document leaves a choice open, whose
 * choice answers it. The same steps run for every request (core/dispatch.ts, api.ts, routes.ts);
 * what differs is this object. The mock's own conventions (C1–C20) are MOCK_CONVENTIONS below:
 * their choices as data, and steps that leave the mock's answers as they are. A twin's are made
 * from its server's profile by src/twin/layer.ts, which a core loads only with `conventions` (a
 * browser bundle never loads it otherwise).
 */
export interface ConventionsLayer {
  /** Where the API is served: '' (under /v1), or a server's prefix (`/api`), and only there. */
  readonly pathPrefix: string;
  /** The status of each operation's success (C1). */
  readonly successStatus: Readonly<Record<Operation, number>>;
  /** What a delete answers (C1: 204 and no body). */
  readonly deleteAnswer: Readonly<Record<Kind, DeleteAnswer>>;
  /** The readers of the writes' parameters, with their limits (C14). */
  readonly readers: WriteReaders;
  /** How worlds are made: ids of another format, the ids deletes took remembered, the seeded world's ids. */
  readonly worlds: Pick<WorldOptions, 'newId' | 'keepDeleted'> & { seeded(data: WorldData): WorldData };
  /** What `GET /__mock/conventions` answers. */
  readonly described: { twin: boolean; taken: string[]; not_mirrored: string[]; in_force: unknown };
  /** Refuses a request body before it is read (a JSON body, where forms only are read). */
  refuseBody(headers: RequestHeaders): void;
  /** A write's parameters as the routes read them, or their refusal; an update's after its record is found. */
  writeParams(kind: Kind, op: 'create' | 'update', params: Params): Params;
  /** The refusal of an id that names no record (of a deleted one, of one not of the ids' form). */
  missing(name: 'contact' | 'message', id: string, world: World): ApiError;
  /** A page of a list; `own` reads the mock's page from the world. */
  list(kind: Kind, world: World, params: Params, url: string, own: () => unknown): CoreAnswer;
  /** What a create answers, once the record is made. */
  created(kind: Kind, world: World, record: { id: string }): unknown;
  /** An answer of the API (under /v1) as these conventions write it; `origin` the request's. */
  spell(answer: CoreAnswer, kind: Kind | undefined, origin?: string): CoreAnswer;
  /** The OpenAPI document of these conventions, from the mock's own. */
  document(mock: Record<string, unknown>): Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** The mock's own conventions (docs/api.md C1–C20): the default profile of every core. */
export const MOCK_CONVENTIONS: ConventionsLayer = {
  pathPrefix: '',
  successStatus: {
    'contacts.list': 200,
    'contacts.create': 201,
    'contacts.retrieve': 200,
    'contacts.update': 200,
    'messages.list': 200,
    'messages.create': 201,
    'messages.retrieve': 200,
    'messages.update': 200,
  },
  deleteAnswer: { contacts: { status: 204, body: 'empty' }, messages: { status: 204, body: 'empty' } },
  readers: fields,
  worlds: { keepDeleted: false, seeded: (data) => data },
  described: { twin: false, taken: [], not_mirrored: [], in_force: null },
  refuseBody: () => {},
  writeParams: (_kind, _op, params) => params,
  missing: (name, id) => errors.notFound(name, id),
  list(kind, _world, _params, _url, own) {
    return json(this.successStatus[`${kind}.list`], own());
  },
  created: (_kind, _world, record) => record,
  spell: (answer) => answer,
  document: (mock) => mock,
};
