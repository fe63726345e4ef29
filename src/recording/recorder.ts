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
 * Where the recorder is: in a clone, the kit's sources beside src/ (when this file runs from the
 * sources: tsx, jest) or the kit compiled beside the mock (dist/recording/ → dist/contract-tests/);
 * where the packages are installed, in messaging-contract-kit (an optional peer dependency).
 */
function place(): string | undefined {
  const inClone = __filename.endsWith('.ts')
    ? path.join(__dirname, '..', '..', 'contract-tests', 'record', 'index.ts')
    : path.join(__dirname, '..', 'contract-tests', 'record', 'index.js');
  if (existsSync(inClone)) return inClone;
  try {
    const kit = path.dirname(require.resolve('messaging-contract-kit/package.json'));
    return path.join(kit, 'dist', 'record', 'index.js');
  } catch {
    return undefined;
  }
}

export function loadRecorder(): Recorder {
  const file = place();
  if (file === undefined || !existsSync(file))
    throw new Error(
      "recording an account walks the server with the contract kit's recorder, in the package messaging-contract-kit: install it beside the mock (npm install --save-dev messaging-contract-kit)",
    );
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
