import { errors } from '../errors';
import * as fields from '../input/operations';
import type { Params } from '../input/params';
import { encodingOf, header } from '../core/body';
import { MOCK_CONVENTIONS, type ConventionsLayer } from '../core/conventions';
import { attachmentIn, refuseReactionNames, refuseValues, twinAnswer } from './answers';
import { fitsFormat, idMaker, withIds } from './ids';
import { twinList } from './lists';
import { readProfile, tellsDeleted, tellsMalformed } from './profile';

/**
 * The conventions of a twin (core/conventions.ts): the mock's records and rules, answering as the
 * server of a profile does (`conventions`, `--conventions`). A core loads this module only for a
 * profile: the mock alone, and a browser bundle of it, never do. Throws a ProfileError naming the
 * field of a profile it cannot read.
 */
export function twinConventions(profile: Record<string, unknown>): ConventionsLayer {
  const read = readProfile(profile);
  const c = read.conventions;
  const mock = MOCK_CONVENTIONS;
  // What the server tells apart of an id that names nothing: read once, asked on every refusal.
  const [malformed, deleted] = [tellsMalformed(c), tellsDeleted(c)];
  return {
    pathPrefix: c.pathPrefix,
    successStatus: { ...mock.successStatus, ...c.successStatus },
    deleteAnswer: {
      contacts: c.deleteAnswer.contacts ?? mock.deleteAnswer.contacts,
      messages: c.deleteAnswer.messages ?? mock.deleteAnswer.messages,
    },
    // A server that takes longer texts than the mock: so does its twin.
    readers: c.longest ? fields.writeReaders(c.longest) : mock.readers,
    worlds: {
      newId: idMaker(c.ids),
      // Ids of a server's length may be short (a counter's `1001`): a twin's worlds remember the
      // ids their deletes took, so that no id is drawn twice.
      keepDeleted: deleted || Object.keys(c.ids).length > 0,
      seeded: (data) => withIds(data, c.ids),
    },
    described: { twin: true, taken: read.taken, not_mirrored: read.notMirrored, in_force: c },
    refuseBody(headers) {
      if (c.refusesJson && encodingOf(headers) === 'json')
        throw errors.unsupportedMediaType(
          header(headers, 'content-type') ?? '(none)',
          'application/x-www-form-urlencoded or multipart/form-data',
        );
    },
    writeParams(kind, op, params) {
      const rules = c.inputRules?.[kind];
      if (rules) refuseValues(rules, params);
      if (op === 'update' && kind === 'messages' && c.reactionNames)
        refuseReactionNames(params.get('reactions'), c.reactionNames);
      return c.attachments ? withAttachmentsIn(params, c.attachments.sent) : params;
    },
    missing(name, id, world) {
      // A server that refuses an id not of its form, or tells a deleted id from an unknown one.
      const format = c.ids[name];
      if (format && malformed && !fitsFormat(format, id))
        return errors.invalid('id', `${JSON.stringify(id)} is not of the form of ${name} ids.`);
      if (deleted && world.wasDeleted(id)) return errors.deleted(name, id);
      return errors.notFound(name, id);
    },
    list: (kind, world, params, url) => twinList(c, kind, world, params, url),
    created(kind, world, record) {
      if (!c.touchOnSend || kind !== 'messages') return record;
      // The server marks the sender active when a message is sent.
      const message = record as { id: string; contact: { id: string }; created_at: number };
      world.touchContact(message.contact.id, message.created_at);
      return world.getMessage(message.id);
    },
    spell: (answer, kind, origin) => twinAnswer(c, answer, kind, origin),
    document: async (document) => (await import('./document')).twinDocument(document, read),
  };
}

/** Attachments sent in the server's shape, as the mock's rules read them. */
function withAttachmentsIn(params: Params, keys: readonly string[]): Params {
  const sent = params.get('attachments');
  if (!Array.isArray(sent)) return params;
  const mapped = new Map(params);
  mapped.set(
    'attachments',
    sent.map((item, i) => attachmentIn(item, keys, `attachments[${i}]`)),
  );
  return mapped;
}
