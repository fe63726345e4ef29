import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Spool } from './spool';

/**
 * The account walker (common/record.ts) as the mock's side sees it. It walks a server with the
 * paging discovery the contract kit uses too, so it lives in common/, which both packages hold;
 * src/ and common/ are compiled apart (two rootDirs), so `messaging-fixtures --from` loads it at
 * run time and types it here (Recorder); test/mock-tools/walker-link.test.ts holds that type to
 * the walker's own. What comes back is untrusted: each page is checked for its shape as it comes, convert.ts
 * checks every record, and the fixture it makes is checked again as it is written.
 */
export interface RecordProgress {
  phase: 'contacts' | 'conversations' | 'order';
  contacts: number;
  conversationsWalked: number;
  messages: number;
  requests: number;
}

/** What a walk of an account says besides its records. */
export interface AccountWalk {
  baseUrl: string;
  /** Whether the list of every message was walked whole. */
  ordered: boolean;
  paging?: string;
  notes: string[];
  requests: number;
}

/** Where the walk hands each page: contacts, then each conversation and its messages, then the order's ids. */
interface AccountSink {
  contacts(items: unknown[]): void;
  conversation(conversationId: string): void;
  messages(items: unknown[]): void;
  order(ids: string[]): void;
}

interface RecordOptions {
  baseUrl: string;
  token: string;
  /** The page size asked for; the kit's own (100) when not given. */
  pageSize?: number;
  onProgress?(progress: RecordProgress): void;
}

/**
 * What the recorder takes the walker for. @public: test/mock-tools/walker-link.test.ts compiles the
 * walker against it.
 */
export interface Recorder {
  walkAccount: (options: RecordOptions, sink: AccountSink) => Promise<AccountWalk>;
}

/** A whole recorded account in memory (contacts, each conversation's messages, the order's ids): `toFixture`'s input. */
export interface RecordedAccount {
  baseUrl: string;
  /** The server's contacts, in its list's order. */
  contacts: unknown[];
  /** Each contact's conversation, its messages in the list's order. */
  conversations: { conversation_id: string; messages: unknown[] }[];
  /** The ids of the list of every message, in its order, when the server listed it. */
  order?: string[];
  paging?: string;
  notes: string[];
  requests: number;
}

/** A failed recording; `option` is set when the input was at fault (a usage error). */
export interface RecordFailure extends Error {
  name: 'RecordError';
  option?: string;
}

export const isRecordFailure = (error: unknown): error is RecordFailure =>
  error instanceof Error && error.name === 'RecordError';

/**
 * The account walker (common/record.ts), compiled beside the mock (dist/recording/ →
 * dist/common/), or its sources when this file runs from them (tsx, jest).
 */
const PLACE = __filename.endsWith('.ts')
  ? path.join(__dirname, '..', '..', 'common', 'record.ts')
  : path.join(__dirname, '..', 'common', 'record.js');

function loadRecorder(): Recorder {
  if (!existsSync(PLACE)) throw new Error(`the account walker is missing from the package (${PLACE})`);
  const loaded = require(PLACE) as Partial<Recorder>;
  if (typeof loaded.walkAccount !== 'function') throw new Error(`${PLACE} has no walkAccount()`);
  return loaded as Recorder;
}

const NOT_A_RECORDING = 'the account walker answered something that is not a recorded account';

function list<T>(value: unknown, each: (item: unknown) => boolean = () => true): T[] {
  if (!Array.isArray(value) || !value.every(each)) throw new Error(NOT_A_RECORDING);
  return value as T[];
}

/**
 * Walks the account into the spool, a page at a time: nothing of it stays in memory but where
 * each record starts in the spool's file.
 */
export async function spoolAccount(options: RecordOptions, spool: Spool): Promise<AccountWalk> {
  const walked = (await loadRecorder().walkAccount(options, {
    contacts: (items) => spool.write('contacts', list(items)),
    conversation: (id) => {
      if (typeof id !== 'string') throw new Error(NOT_A_RECORDING);
      spool.conversation(id);
    },
    messages: (items) => spool.write('messages', list(items)),
    order: (ids) =>
      spool.write(
        'order',
        list(ids, (id) => typeof id === 'string'),
      ),
  })) as Partial<AccountWalk> | null;
  const ok =
    walked !== null &&
    typeof walked === 'object' &&
    typeof walked.baseUrl === 'string' &&
    typeof walked.ordered === 'boolean' &&
    (walked.paging === undefined || typeof walked.paging === 'string') &&
    Array.isArray(walked.notes) &&
    walked.notes.every((note) => typeof note === 'string') &&
    typeof walked.requests === 'number';
  if (!ok) throw new Error(NOT_A_RECORDING);
  return walked as AccountWalk;
}
