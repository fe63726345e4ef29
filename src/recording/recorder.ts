import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The contract kit's recorder (contract-tests/record/) as the mock's side sees it. It walks a
 * server with the kit's requests and paging, so it lives in the kit; src/ and contract-tests/ are
 * compiled apart (two rootDirs), so `messaging-fixtures --from` loads it at run time and types it
 * here. What comes back is untrusted: convert.ts checks every record, and the fixture it makes is
 * checked again with validateFixture before it is written.
 */
export interface RecordProgress {
  phase: 'contacts' | 'conversations' | 'order';
  contacts: number;
  conversationsWalked: number;
  messages: number;
  requests: number;
}

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

interface Recorder {
  recordAccount(options: {
    baseUrl: string;
    token: string;
    onProgress?(progress: RecordProgress): void;
  }): Promise<RecordedAccount>;
}

/** A failed recording; `option` is set when the input was at fault (a usage error). */
export interface RecordFailure extends Error {
  name: 'RecordError';
  option?: string;
}

export const isRecordFailure = (error: unknown): error is RecordFailure =>
  error instanceof Error && error.name === 'RecordError';

/**
 * The compiled kit beside the compiled mock (dist/recording/ → dist/contract-tests/record/), or,
 * when this file runs from the sources (tsx, jest), the kit's sources beside src/.
 */
const PLACE = __filename.endsWith('.ts')
  ? path.join(__dirname, '..', '..', 'contract-tests', 'record', 'index.ts')
  : path.join(__dirname, '..', 'contract-tests', 'record', 'index.js');

export function loadRecorder(): Recorder {
  const file = PLACE;
  if (!existsSync(file))
    throw new Error(`the contract kit's recorder is not installed beside the mock (looked for ${file})`);
  const loaded = require(file) as Partial<Recorder>;
  if (typeof loaded.recordAccount !== 'function') throw new Error(`${file} has no recordAccount()`);
  return loaded as Recorder;
}

/** The shape of what the recorder answered, before any record in it is read. */
export function checkRecorded(value: unknown): RecordedAccount {
  const account = value as Partial<RecordedAccount> | null;
  const ok =
    account !== null &&
    typeof account === 'object' &&
    typeof account.baseUrl === 'string' &&
    Array.isArray(account.contacts) &&
    Array.isArray(account.conversations) &&
    account.conversations.every(
      (c) =>
        c !== null &&
        typeof c === 'object' &&
        typeof c.conversation_id === 'string' &&
        Array.isArray(c.messages),
    ) &&
    (account.order === undefined ||
      (Array.isArray(account.order) && account.order.every((id) => typeof id === 'string'))) &&
    Array.isArray(account.notes) &&
    typeof account.requests === 'number';
  if (!ok) throw new Error("the contract kit's recorder answered something that is not a recorded account");
  return account as RecordedAccount;
}
