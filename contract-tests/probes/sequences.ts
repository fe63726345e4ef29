import fc from 'fast-check';
import { config } from '../http/config';
import { cleanup, type Json } from '../model/data';
import { InfraError, is4xx, onExchange, wireOf, type Exchange } from '../http/http';
import { asProxyExchange } from '../http/wire';
import { recordOf } from '../http/exchange';
import { startJudging } from '../judge/judging';
import { Operations, type Done } from '../model/operations';
import { reactionNames } from '../model/samples';
import { writeRecord, type SequenceSummary } from '../http/records';
import { excerpt, NotRun, RuleFailure } from '../model/harness';
import { verify, type Focus } from '../model/views';
import { VALUE_CLASSES } from './values';

/**
 * Random sequences of the documented operations on the kit's own data (fast-check's model-based
 * testing). After every step the kit reads every view of what the step touched (the model says which
 * records to read, and which are alive), and the one judge (judge/judging.ts, the proxy's) judges
 * the sequence's exchanges: its first violation fails the sequence, under the rule the judge names.
 * A failing sequence is shrunk, each shorter try judged afresh, to a shortest one that still fails,
 * and printed as a numbered list of requests and as a curl script that replays it. Bounded by a
 * request budget, stated up front.
 */
export const SEQUENCE_TITLE = '[sequences] random sequences of the documented operations';

/** Requests a sequence may take: its start, up to 10 steps, each with its views, and the clean-up after it. */
export const REQUESTS_PER_SEQUENCE = 180;
/** Reserved for shrinking a failure: each try replays a shorter sequence against the server. */
export const SHRINK_REQUESTS = 1500;
const MAX_STEPS = 10;

export function budgetFor(sequences: number): number {
  return sequences === 0 ? 0 : sequences * REQUESTS_PER_SEQUENCE + SHRINK_REQUESTS;
}

/** What the server takes where the document is silent, found before the sequences. */
interface Abilities {
  reaction?: string;
  attachments: boolean;
}

interface State {
  ops: Operations;
  abilities: Abilities;
  /** The operations of this run, with their answers: the printed sequence. */
  log: { step: string; exchange: Exchange }[];
  labels: number;
  /** The judge of this run's exchanges alone. */
  judge: SequenceJudge;
}

interface SequenceJudge {
  /** Throws the judge's first violation in the sequence's exchanges so far, as a RuleFailure. */
  verdict(): void;
  stop(): void;
}

/**
 * A judge session of its own for one run of a sequence (a shrinking try is another run): it sees
 * the exchanges this process makes while the sequence runs, and none of the other tests' (each
 * process runs one test at a time), though they write to the same account at the same time. So
 * it takes no send of the token's to be the sequence's alone (`sawEveryCreate`), and only its
 * verdicts on the answers about the sequence's own records count: the operations' and the
 * retrieves'. A list also shows the other tests' records, whose writes this session never saw
 * (one deleted by its test, and missing from the list, is no fault), so there the model's
 * reading stays the oracle; the run's judge, which saw every exchange, judges the lists.
 */
function judgeSequence(): SequenceJudge {
  const judging = startJudging(config.ruleSet, { settleMs: config.settleMs, soleWriter: true });
  let first: RuleFailure | undefined;
  const stop = onExchange((exchange) => {
    const wire = wireOf(exchange);
    if (first || !wire) return;
    const outcome = judging.judge(asProxyExchange(wire, 0));
    // A read that names no record is a list's: it shows every client's records.
    const violation =
      outcome.kind === 'judged' && (wire.method !== 'GET' || recordOf(wire) !== undefined)
        ? outcome.violations[0]
        : undefined;
    if (violation)
      first = new RuleFailure(violation.message, exchange, {
        rule: violation.rule,
        check: 'a random sequence',
      });
  });
  return {
    verdict: () => {
      if (first) throw first;
    },
    stop,
  };
}

const live = <T>(map: Map<string, T>, pick: number): string | undefined => {
  const ids = [...map.keys()];
  return ids.length === 0 ? undefined : ids[pick % ids.length];
};

/**
 * A value of the class the seed drew (probes/values.ts), or undefined for the kit's plain one: the
 * same seed sends the same values. The server may refuse a class (a step then changes nothing).
 */
const valueClass = fc.nat({ max: VALUE_CLASSES.length });
const classValue = (drawn: number, label: string): string | undefined => {
  const drawnClass = VALUE_CLASSES[drawn];
  return drawnClass && `${config.runId} ${drawnClass.value} ${label}`;
};

/** The rule that makes each operation, well formed and on live data, one the server must take. */
const OPERATION_RULE: Record<string, string> = {
  'create a contact': 'contacts.create',
  'rename the contact': 'contacts.update.display-name',
  'delete the contact': 'contacts.delete',
  'send a message': 'messages.send',
  'edit the message': 'messages.update.edit-text',
  'react to the message': 'messages.update.add-reaction',
  'attach a file to the message': 'messages.update.add-attachment',
  'delete the message': 'messages.delete.permanent',
};

/**
 * Runs one operation, logs it, reads the views it touched, and asks the judge: its first violation
 * in the sequence fails the step. The model says which records to read; where its own reading of
 * an answer (or a refusal of a well-formed operation on live data) finds a fault the judge found
 * none in, that fails the step too, as the kit's model does everywhere (judge/rule-verdict.ts
 * JUDGE_MISSED: a gap of the judge, never a pass).
 */
async function step(
  state: State,
  name: string,
  done: Promise<Done>,
  focus: (d: Done) => Focus,
  mayRefuse = false,
): Promise<void> {
  try {
    const result = await done;
    state.log.push({ step: name, exchange: result.exchange });
    const operation = Object.keys(OPERATION_RULE).find((key) => name.startsWith(key))!;
    if (!result.ok && !(mayRefuse && is4xx(result.exchange)))
      throw new RuleFailure(`${name} was refused (${result.exchange.status})`, result.exchange, {
        rule: OPERATION_RULE[operation],
        check: 'a random sequence',
      });
    if (result.ok) await verify(state.ops.model, focus(result));
  } catch (error) {
    // The judge's finding comes before the model's.
    if (error instanceof RuleFailure) state.judge.verdict();
    throw error;
  }
  state.judge.verdict();
}

type Cmd = fc.AsyncCommand<State, State>;

function command(
  describe: string,
  check: (s: Readonly<State>) => boolean,
  run: (s: State) => Promise<void>,
): Cmd {
  return { check, run: (_m, s) => run(s), toString: () => describe };
}

const createContact = fc.boolean().map((named) =>
  command(
    `create a contact${named ? ' with a display_name' : ''}`,
    () => true,
    (s) => {
      s.labels += 1;
      return step(
        s,
        'create a contact',
        s.ops.createContact(`seq${s.labels}`, named ? `Seq Name ${s.labels}` : undefined),
        (d) => ({ contacts: d.id ? [d.id] : [] }),
      );
    },
  ),
);

const renameContact = fc.tuple(fc.nat(), valueClass).map(([pick, drawn]) =>
  command(
    `rename contact #${pick}${VALUE_CLASSES[drawn] ? ` (${VALUE_CLASSES[drawn].name})` : ''}`,
    (s) => s.ops.model.contacts.size > 0,
    (s) => {
      const id = live(s.ops.model.contacts, pick)!;
      s.labels += 1;
      const name = classValue(drawn, `${s.labels}`) ?? `Renamed ${s.labels}`;
      return step(
        s,
        `rename the contact ${id}`,
        s.ops.renameContact(id, name),
        () => ({
          contacts: [id],
          messages: s.ops.model.messagesIn(s.ops.model.contacts.get(id)!.conversationId).map((m) => m.id),
        }),
        VALUE_CLASSES[drawn] !== undefined,
      );
    },
  ),
);

const deleteContact = fc.nat().map((pick) =>
  command(
    `delete contact #${pick}`,
    (s) => s.ops.model.contacts.size > 0,
    (s) => {
      const id = live(s.ops.model.contacts, pick)!;
      const messages = s.ops.model.messagesIn(s.ops.model.contacts.get(id)!.conversationId).map((m) => m.id);
      return step(s, `delete the contact ${id}`, s.ops.deleteContact(id), () => ({
        contacts: [id],
        messages,
        full: true,
      }));
    },
  ),
);

const sendMessage = fc.tuple(fc.nat(), fc.boolean()).map(([pick, attached]) =>
  command(
    `send a message to contact #${pick}${attached ? ' with an attachment' : ''}`,
    (s) => s.ops.model.contacts.size > 0,
    (s) => {
      const contact = s.ops.model.contacts.get(live(s.ops.model.contacts, pick)!)!;
      s.labels += 1;
      const file = attached && s.abilities.attachments ? `seq${s.labels}.pdf` : undefined;
      return step(
        s,
        'send a message',
        s.ops.sendMessage(contact.conversationId, `seq${s.labels}`, file),
        (d) => ({
          contacts: [contact.id],
          messages: d.id ? [d.id] : [],
        }),
      );
    },
  ),
);

const editMessage = fc.tuple(fc.nat(), valueClass).map(([pick, drawn]) =>
  command(
    `edit message #${pick}${VALUE_CLASSES[drawn] ? ` (${VALUE_CLASSES[drawn].name})` : ''}`,
    (s) => s.ops.model.messages.size > 0,
    (s) => {
      const id = live(s.ops.model.messages, pick)!;
      s.labels += 1;
      return step(
        s,
        `edit the message ${id}`,
        s.ops.editMessage(id, `seqedit${s.labels}`, classValue(drawn, `seqedit${s.labels}`)),
        () => ({ messages: [id] }),
        VALUE_CLASSES[drawn] !== undefined,
      );
    },
  ),
);

const react = fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 })).map(([pick, who]) =>
  command(
    `react to message #${pick} as user ${who}`,
    (s) => s.ops.model.messages.size > 0 && s.abilities.reaction !== undefined,
    (s) => {
      const id = live(s.ops.model.messages, pick)!;
      return step(
        s,
        `react to the message ${id}`,
        s.ops.react(id, s.abilities.reaction!, `reactor_${who}`),
        () => ({
          messages: [id],
        }),
      );
    },
  ),
);

const attach = fc.nat().map((pick) =>
  command(
    `attach a file to message #${pick}`,
    (s) => s.ops.model.messages.size > 0 && s.abilities.attachments,
    (s) => {
      const id = live(s.ops.model.messages, pick)!;
      s.labels += 1;
      return step(
        s,
        `attach a file to the message ${id}`,
        s.ops.attach(id, `seqfile${s.labels}.pdf`),
        () => ({
          messages: [id],
        }),
      );
    },
  ),
);

const deleteMessage = fc.nat().map((pick) =>
  command(
    `delete message #${pick}`,
    (s) => s.ops.model.messages.size > 0,
    (s) => {
      const id = live(s.ops.model.messages, pick)!;
      return step(s, `delete the message ${id}`, s.ops.deleteMessage(id), () => ({
        messages: [id],
        full: true,
      }));
    },
  ),
);

/** Updates weigh more than creations: what an update must keep is where servers go wrong. */
const COMMANDS = [
  createContact,
  renameContact,
  deleteContact,
  sendMessage,
  editMessage,
  editMessage,
  react,
  react,
  attach,
  deleteMessage,
];

/** Which reaction name and whether attachments the server takes: the document shows neither. */
async function probe(): Promise<Abilities> {
  const ops = new Operations();
  const contact = await ops.createContact('seqprobe');
  if (!contact.ok)
    throw new NotRun(`the server did not create a contact (${contact.exchange.status}); see contacts.create`);
  const conversation = ops.model.contacts.get(contact.id!)!.conversationId;
  const message = await ops.sendMessage(conversation, 'seqprobe');
  if (!message.ok)
    throw new NotRun(`the server did not take a message (${message.exchange.status}); see messages.send`);
  const reacted = await ops.reactAny(message.id!, 'seq_probe', reactionNames());
  const attached = await ops.attach(message.id!, 'seqprobe.pdf');
  await cleanup();
  return { reaction: reacted?.ok ? reacted.name : undefined, attachments: attached.ok };
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The failing sequence as a bash script: every id the server gave is caught from its answer into
 * a variable, so that the script replays the sequence on the same server, with a token of yours.
 */
function curlScript(log: { step: string; exchange: Exchange }[], failed?: Exchange): string {
  const names = new Map<string, string>();
  const counts = { C: 0, V: 0, M: 0 };
  const name = (kind: keyof typeof counts, id: unknown) => {
    if ((typeof id !== 'string' && typeof id !== 'number') || names.has(String(id))) return;
    counts[kind] += 1;
    names.set(String(id), `${kind}${counts[kind]}`);
  };
  const withVariables = (text: string) => {
    let out = text;
    for (const [id, variable] of [...names].sort((a, b) => b[0].length - a[0].length)) {
      out = out.split(encodeURIComponent(id)).join(`\${${variable}}`);
      out = out.split(id).join(`\${${variable}}`);
    }
    return out;
  };
  const lines = [
    '#!/usr/bin/env bash',
    '# Replays a failing sequence found by the Messaging API contract kit.',
    '# Usage: BASE_URL=<server root> TOKEN=<bearer token> bash this-file',
    'set -u',
    `BASE_URL="\${BASE_URL:-${config.baseUrl}}"`,
    'TOKEN="${TOKEN:?set TOKEN to a bearer token}"',
    `field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }`,
    '',
  ];
  const request = (exchange: Exchange) => {
    const [path] = [withVariables(exchange.path)];
    const parts = [
      `curl -sS -X ${exchange.method}`,
      `"\${BASE_URL}${path}"`,
      '-H "Authorization: Bearer ${TOKEN}"',
    ];
    if (exchange.sent !== undefined) {
      for (const pair of exchange.sent.split('&').filter(Boolean)) {
        const [key, value = ''] = pair.split('=').map((p) => decodeURIComponent(p.replace(/\+/g, ' ')));
        const quoted = shellQuote(`${key!}=${withVariables(value)}`).replace(/\$\{(\w+)\}/g, `'"\${$1}"'`);
        parts.push(`--data-urlencode ${quoted}`);
      }
    }
    return parts.join(' ');
  };
  log.forEach(({ step, exchange }, i) => {
    lines.push(`# ${i + 1}. ${withVariables(step)} (the kit got ${exchange.status})`);
    const body = exchange.body as Json | undefined;
    const creates = exchange.method === 'POST' && exchange.status < 300 && body;
    lines.push(`${creates ? 'R=$(' : ''}${request(exchange)}${creates ? ')' : ''}`);
    if (creates) {
      lines.push('echo "$R"');
      if (exchange.path.startsWith('/v1/contacts')) {
        name('C', body.id);
        name('V', body.conversation_id);
        lines.push(
          `${names.get(String(body.id))}=$(printf %s "$R" | field id); ${names.get(String(body.conversation_id))}=$(printf %s "$R" | field conversation_id)`,
        );
      } else {
        name('M', body.id);
        lines.push(`${names.get(String(body.id))}=$(printf %s "$R" | field id)`);
      }
    }
    lines.push('echo');
  });
  if (failed && !log.some((l) => l.exchange === failed)) {
    lines.push('# The view that showed the failure:', request(failed), 'echo');
  }
  return `${lines.join('\n')}\n`;
}

function describeLog(log: { step: string; exchange: Exchange }[], failed?: Exchange): string[] {
  const steps = log.map(
    ({ step, exchange }, i) =>
      `${i + 1}. ${step}: ${exchange.method} ${exchange.path}${exchange.sent ? ` ${exchange.sent}` : ''} → ${exchange.status}`,
  );
  if (failed && !log.some((l) => l.exchange === failed))
    steps.push(`then: ${failed.method} ${failed.path} → ${failed.status} showed the failure`);
  else if (failed)
    steps.push(`the answer to step ${log.findIndex((l) => l.exchange === failed) + 1} showed the failure`);
  return steps;
}

/** Runs the sequences; returns the summary, and records a failure under its rule. */
async function runSequences(count: number, seed: number, test: string): Promise<SequenceSummary> {
  const budget = budgetFor(count);
  const summary: SequenceSummary = { sequences: count, ran: 0, seed, budget, requests: 0 };
  let used = 0;
  const stop = onExchange(() => (used += 1));
  try {
    let abilities: Abilities;
    try {
      abilities = await probe();
    } catch (error) {
      // The probe's own operations are checked too: a rule broken there is a failure of that rule.
      if (error instanceof RuleFailure && error.of.rule) {
        writeRecord({
          kind: 'verdict',
          rule: error.of.rule,
          test,
          verdict: 'fail',
          ...(error.of.check ? { check: error.of.check } : {}),
          reason: error.message.split('\n')[0]!,
          ...(error.exchange ? { exchange: excerpt(error.exchange) } : {}),
        });
        const broken = {
          ...summary,
          notRun: `the probe before the sequences found ${error.of.rule} broken`,
          requests: used,
        };
        writeRecord({ kind: 'sequences', summary: broken });
        return broken;
      }
      if (!(error instanceof NotRun)) throw error;
      const notRun = { ...summary, notRun: error.message, requests: used };
      writeRecord({ kind: 'sequences', summary: notRun });
      return notRun;
    }
    let shrinks = -1;
    let lastFailure: { error: RuleFailure; log: State['log'] } | undefined;
    const property = fc.asyncProperty(
      fc.commands(COMMANDS, { maxCommands: MAX_STEPS, size: 'max' }),
      async (cmds) => {
        // Past the budget, the remaining sequences are not run (and shrinking stops where it is).
        if (used >= budget || (lastFailure === undefined && used >= budget - SHRINK_REQUESTS)) return;
        if (lastFailure === undefined) summary.ran += 1;
        else shrinks += 1;
        const state: State = { ops: new Operations(), abilities, log: [], labels: 0, judge: judgeSequence() };
        try {
          await fc.asyncModelRun(async () => {
            // Every sequence starts from two contacts with a message each, so that every step can run.
            for (let i = 0; i < 2; i++) {
              state.labels += 1;
              await step(
                state,
                'create a contact',
                state.ops.createContact(`seq${state.labels}`),
                () => ({}),
              );
              const contact = [...state.ops.model.contacts.values()].at(-1)!;
              await step(
                state,
                'send a message',
                state.ops.sendMessage(contact.conversationId, `seq${state.labels}`),
                () => ({}),
              );
            }
            return { model: state, real: state };
          }, cmds);
        } catch (error) {
          // A step this server cannot judge (a list it cannot walk to its end) ends the sequence
          // without a verdict: no failure.
          if (error instanceof NotRun) {
            summary.notRun ??= `some sequences stopped early: ${error.message}`;
            return;
          }
          if (error instanceof RuleFailure) lastFailure = { error, log: [...state.log] };
          throw error;
        } finally {
          state.judge.stop();
          await cleanup();
        }
      },
    );
    const details = await fc.check(property, { numRuns: count, seed, endOnFailure: false });
    const failure = lastFailure as { error: RuleFailure; log: State['log'] } | undefined;
    if (details.failed && details.errorInstance instanceof InfraError) throw details.errorInstance;
    if (details.failed && failure?.error.of.rule) {
      const { error, log } = failure;
      const rule = error.of.rule!;
      const steps = describeLog(log, error.exchange);
      summary.failure = {
        rule,
        ...(error.of.check ? { check: error.of.check } : {}),
        reason: error.message.split('\n')[0]!,
        steps,
        curl: curlScript(log, error.exchange),
        shrinks: Math.max(0, shrinks),
      };
      writeRecord({
        kind: 'verdict',
        rule,
        test,
        verdict: 'fail',
        ...(error.of.check ? { check: error.of.check } : {}),
        reason: `${error.message.split('\n')[0]} — after a random sequence of ${log.length} step(s) (seed ${seed}): ${steps.join('; ')}`,
        ...(error.exchange ? { exchange: excerpt(error.exchange) } : {}),
      });
    } else if (details.failed) {
      throw details.errorInstance instanceof Error
        ? details.errorInstance
        : new Error(`the random sequences stopped: ${String(details.errorInstance)}`);
    }
    writeRecord({ kind: 'sequences', summary: { ...summary, requests: used } });
    return { ...summary, requests: used };
  } finally {
    stop();
    summary.requests = used;
  }
}

/** Declares the sequences' test in a contract file: it belongs to no one rule, but to each it finds broken. */
export function declareSequences(): void {
  if (config.sequences === 0) return;
  test(
    SEQUENCE_TITLE,
    async () => {
      await runSequences(config.sequences, config.seed, SEQUENCE_TITLE);
    },
    Math.max(300_000, config.timeoutMs * 30),
  );
}
