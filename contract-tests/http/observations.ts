import type {
  AvatarDefault,
  DeleteAnswer,
  ErrorBody,
  IdFormat,
  IdKind,
  Operation,
  Paging,
} from '../../common/server-profile';

export type Unit = 'seconds' | 'milliseconds' | 'microseconds';
export type ListName = 'contacts' | 'messages';

/** A probe's answer: the status it got, or why it could not ask. */
type ProbeStatus = { status: number } | { unknown: string };

/**
 * What a process of the run saw of the server's choices (`--profile-out`), by key: each one is a
 * ledger record with the exchange that showed it, gathered by the bin into the server profile
 * (profile/build.ts). The workers observe the kit's ordinary exchanges (profile/observe.ts); the bin adds a few
 * probes of its own at the end of the run (profile/probe.ts).
 */
export interface Observations {
  /** A 2xx JSON answer's content type, without parameters. */
  'content type': string;
  'success status': { operation: Operation; status: number };
  /** A successful delete; answer null: a body that is no JSON object. */
  'delete answer': { list: ListName; answer: DeleteAnswer | null };
  /** The format of one id a create answered; `length` always (profile/build.ts keeps it where it belongs). */
  'id format': { kind: IdKind; format: IdFormat };
  /** The unit of a created record's created_at, told from the clock; null: none of the three. */
  'timestamp unit': Unit | null;
  /** One page of a whole list: the orders ("created_at desc number") it breaks, and those it shows. */
  'list order': { list: ListName; violated: string[]; supported: string[] };
  /** Two neighbours of a page with the same created_at, both made by this process: which came first. */
  'list ties': { list: ListName; first: 'older' | 'newer' };
  /** The next-page mechanism a walk of the path settled on; null: none found. */
  paging: { path: string; paging: Paging | null };
  /** Items on a first page asked for without limit, when has_more was true. */
  'default limit': number;
  /** A 4xx answer's body; shape null: no human message found in it. */
  'error body': { status: number; shape: ErrorBody | null };
  /** The status of a retrieve of a record this process deleted (a 2xx DELETE of that path). */
  'deleted id': number;
  /** A reaction name an update sent alone (with a text at most): taken (2xx) or refused (4xx). */
  'reaction name': { name: string; taken: boolean };
  /** The status of a retrieve of the kit's made-up id (rules/resources.ts MADE_UP_IDS). */
  'malformed id': number;
  /** The status of a create refused for a required parameter left out. */
  'missing parameter': number;
  /** What a contact created without avatar_url got. */
  'avatar default': AvatarDefault;
  /** How a message with two reaction names laid them out. */
  reactions: 'per-name' | 'merged';
  /** An attachment sent (its keys in the order sent) and as the answer showed it (sorted keys). */
  attachment: { sent: string[]; answered: string[] };
  /**
   * A field of an answer that the document does not list (profile/own-fields.ts): where, its path,
   * what it is consistent with (`const:<json>`, `copy:<field>`, `self:<template>`, `param:<name>`,
   * `size`, `cut`, `count`, `count?`, `first`, `null`, `string`, `param`, `status`), a value of it, and the query's
   * parameters of a page.
   */
  'own field': {
    where: 'contact' | 'message' | 'page' | 'error';
    path: string;
    explains: string[];
    sample: unknown;
    sent?: string[];
  };
  /**
   * A create or update that sent free-form values only (common/value-forms.ts RULED_FIELDS, with a
   * message's conversation_id): each value's length and forms, and whether the server took it.
   */
  'input value': {
    operation: Operation;
    values: Record<string, { length: number; forms: string[] }>;
    taken: boolean;
    status: number;
  };
  /** Whether a send's answer showed its contact's last_active_at at the message's created_at, or later. */
  'touch on send': boolean;
  /** Probes of the bin: a retrieve of an id of the server's format that was never made. */
  'unknown id': ProbeStatus & { shape?: ErrorBody | null };
  /** limit=0, -1, abc: the status of the first refusal. */
  'invalid limit': ProbeStatus;
  'missing token': ProbeStatus;
  /** A create sent as JSON beside the same as a form: read alike, or JSON refused with its status. */
  'json body': { taken: true } | { taken: false; status: number } | { unknown: string };
  /** The largest limit taken as asked, and what a larger one gets. */
  'limit bounds': { max?: number; overMax?: 'refuse' | 'clamp' };
}

export type ProfileKey = keyof Observations;

export type ProfileRecord = {
  [K in ProfileKey]: { kind: 'profile'; key: K; value: Observations[K]; seen: string };
}[ProfileKey];
