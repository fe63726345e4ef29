import type { Exchange } from './traffic';

/**
 * The client's ledger of what the mock acknowledged: for each record a token wrote (contacts and
 * messages it created, edited or deleted), the record as the last acknowledged write left it, or
 * that it was deleted. A write that got no answer from the mock (the process killed under it, or
 * a gateway's 502 while it was down) may or may not have been applied: its record is uncertain,
 * and not judged, until a later write to it is acknowledged. `check` reads every record back and
 * names those that are lost (404), changed (fields differ) or back (a deleted record served).
 */
type Kind = 'contacts' | 'messages';
type Entry =
  | { kind: Kind; token: string; state: 'kept'; fields: Record<string, unknown> }
  | { kind: Kind; token: string; state: 'deleted' }
  | { kind: Kind; token: string; state: 'uncertain' };

/** What a write leaves of each kind that the ledger compares (the fields the client sent or chose). */
const COMPARED = {
  contacts: ['username', 'phone_number', 'display_name', 'conversation_id'],
  messages: ['message', 'reactions', 'conversation_id'],
} as const;

export interface LedgerCounts {
  /** Writes the mock acknowledged (2xx). */
  acknowledged: number;
  /** Writes that got no answer from the mock: their outcome is unknown. */
  unanswered: number;
  /** Records read back, and of them: */
  checked: number;
  uncertain: number;
  lost: string[];
  changed: string[];
  back: string[];
}

const WRITE_PATH = /^\/v1\/(contacts|messages)(?:\/([^/?]+))?$/;

export class Ledger {
  readonly #entries = new Map<string, Entry>();
  /** `<token> <contact id>` → its conversation, from every answer that showed a contact. */
  readonly #conversations = new Map<string, string>();
  /** `<token> <conversation>` → the keys of the messages written in it. */
  readonly #inConversation = new Map<string, Set<string>>();
  acknowledged = 0;
  unanswered = 0;

  /** Takes one exchange of the traffic (reads are ignored). */
  observe(exchange: Exchange): void {
    if (exchange.method === 'GET' && exchange.path.startsWith('/v1/contacts?') && exchange.status === 200)
      for (const contact of (exchange.answer as { data: Record<string, string>[] }).data)
        this.#conversations.set(`${exchange.token} ${contact.id}`, contact.conversation_id!);
    const found = WRITE_PATH.exec(exchange.path);
    if (!found || exchange.method === 'GET') return;
    const kind = found[1] as Kind;
    const key = (id: string) => `${exchange.token} ${kind} ${id}`;
    const id = found[2];
    const status = exchange.status;
    if (status === undefined || status >= 500) {
      // The mock did not say: applied or not, nobody knows.
      this.unanswered++;
      if (id !== undefined) this.#uncertain(key(id), kind, exchange.token, id, exchange.method === 'DELETE');
      return;
    }
    if (status >= 300) return; // Refused (a 404 to a record deleted before): nothing applied.
    this.acknowledged++;
    if (exchange.method === 'DELETE') {
      this.#entries.set(key(id!), { kind, token: exchange.token, state: 'deleted' });
      // Deleting a contact deletes its conversation's messages.
      if (kind === 'contacts') this.#conversationOf(exchange.token, id!, 'deleted');
      return;
    }
    const record = exchange.answer as Record<string, unknown>;
    const fields = Object.fromEntries(COMPARED[kind].map((field) => [field, record[field]]));
    const conversation = String(record.conversation_id);
    if (kind === 'contacts') this.#conversations.set(`${exchange.token} ${record.id}`, conversation);
    else {
      const keys = this.#inConversation.get(`${exchange.token} ${conversation}`) ?? new Set();
      this.#inConversation.set(`${exchange.token} ${conversation}`, keys.add(key(String(record.id))));
    }
    this.#entries.set(key(String(record.id)), {
      kind,
      token: exchange.token,
      state: 'kept',
      fields,
    });
  }

  /** A write without an answer: its record, and where it deleted a contact its messages, uncertain. */
  #uncertain(key: string, kind: Kind, token: string, id: string, deleting: boolean): void {
    this.#entries.set(key, { kind, token, state: 'uncertain' });
    if (kind === 'contacts' && deleting) this.#conversationOf(token, id, 'uncertain');
  }

  /** The messages written in a contact's conversation, now deleted or uncertain with it. */
  #conversationOf(token: string, contact: string, state: 'deleted' | 'uncertain'): void {
    const conversation = this.#conversations.get(`${token} ${contact}`);
    for (const key of this.#inConversation.get(`${token} ${conversation}`) ?? [])
      this.#entries.set(key, { kind: 'messages', token, state });
  }

  /** Reads every record back through `url` (loopback) and compares it with the ledger. */
  async check(url: URL, connections = 16): Promise<LedgerCounts> {
    const counts: LedgerCounts = {
      acknowledged: this.acknowledged,
      unanswered: this.unanswered,
      checked: 0,
      uncertain: 0,
      lost: [],
      changed: [],
      back: [],
    };
    const entries = [...this.#entries];
    let next = 0;
    const worker = async () => {
      while (next < entries.length) {
        const [key, entry] = entries[next++]!;
        if (entry.state === 'uncertain') {
          counts.uncertain++;
          continue;
        }
        const id = key.slice(key.lastIndexOf(' ') + 1);
        const res = await fetch(new URL(`/v1/${entry.kind}/${id}`, url), {
          headers: { Authorization: `Bearer ${entry.token}` },
        });
        const body = res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
        if (res.status !== 200) await res.arrayBuffer();
        counts.checked++;
        if (entry.state === 'deleted') {
          if (res.status !== 404) counts.back.push(`${key} (${res.status})`);
        } else if (body === undefined) counts.lost.push(`${key} (${res.status})`);
        else {
          const now = Object.fromEntries(Object.keys(entry.fields).map((field) => [field, body[field]]));
          if (JSON.stringify(now) !== JSON.stringify(entry.fields))
            counts.changed.push(`${key}: ${JSON.stringify(entry.fields)} → ${JSON.stringify(now)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    return counts;
  }
}
