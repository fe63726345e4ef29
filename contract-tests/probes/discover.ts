import { deleteResource, postContact, postMessage } from '../model/data';
import { describeExchange, is2xx, send, type Exchange, type Pairs } from '../http/http';
import { observe } from '../profile/choices';
import { config } from '../http/config';
import { CONTACT_FIELDS, requiredOf, recordPath } from '../rules/resources';
import { writeRecord } from '../http/records';
import { excerpt } from '../model/harness';
import {
  ATTACHMENT_SHAPES,
  attachmentKeysOf,
  attachmentPairs,
  AVATARS,
  DISPLAY_NAMES,
  PHONES,
  phoneFor,
  reactionPair,
  REACTIONS,
  styleOf,
  usernameFor,
  USERNAME_STYLES,
  type Found,
  type UserSamples,
  type UsernameStyle,
} from '../model/samples';

/**
 * Before the rules run, the bin finds values this server accepts for each field whose format the
 * document leaves open, with as few requests as it can: the first guesses together first, then
 * one field at a time. What it makes it deletes at once. Nothing here is a verdict: a server may
 * refuse any format; the rules then work with what it takes, and a rule that cannot get what it
 * needs is not run, with the reason.
 */
const idOf = (exchange: Exchange): string | undefined => {
  const body = exchange.body as Record<string, unknown> | undefined;
  if (!is2xx(exchange) || !body || typeof body !== 'object') return undefined;
  return typeof body.id === 'string' || typeof body.id === 'number' ? String(body.id) : undefined;
};

const first = <T>(user: T[] | undefined, guesses: T[]): T[] => [...(user ?? []), ...guesses];

/**
 * Every contact form refused: is it the values, or the form encoding? A refusal that names one of
 * the parameters sent is about its value. Otherwise the first guess is sent once more as a JSON
 * body: taken so, the server refuses the document's form parameters, which fails
 * api.form-parameters (the contact made is deleted at once); refused so too, it is the values, and
 * the rules that need a contact are not run.
 */
async function formsRefused(form: Pairs, refused: Exchange | undefined): Promise<void> {
  if (!refused) return;
  if (refused.status !== 415 && form.some(([key]) => refused.text.includes(key))) return;
  const asJson = await postContact(form, { discovering: true, asJson: true });
  const id = idOf(asJson);
  if (!id) return;
  await deleteResource('contact', id);
  writeRecord({
    kind: 'verdict',
    rule: 'api.form-parameters',
    test: 'finding values the server accepts',
    verdict: 'fail',
    check: 'form body',
    reason: `a contact refused as a form body (${refused.status}) was created from the same values as JSON (${asJson.status})`,
    exchange: excerpt(refused),
  });
}

/**
 * What the server refused when it took none of the contacts the kit tried: the fields whose format
 * is open, the values tried, which field the refusal names, and how it was refused.
 */
function contactsRefused(last: Exchange, styles: UsernameStyle[], phones: string[]): string {
  const named = requiredOf(CONTACT_FIELDS).filter((field) => last.text.includes(field));
  const styleNames = styles.map((s) => `${s.max} characters with '${s.separator}'`);
  return [
    `refused every username style the kit knows (${styleNames.join('; ')})`,
    ` with every phone_number form (${phones.join(', ')})`,
    named.length > 0 ? `; the refusal names ${named.join(' and ')}` : '',
    `; the last: ${describeExchange(last, 200)}`,
  ].join('');
}

export async function discoverSamples(user: UserSamples): Promise<Found> {
  const found: Found = { reactions: [], missing: {} };
  const styles = first(user['contact.username']?.map(styleOf), USERNAME_STYLES);
  const phones = first(user['contact.phone_number'], PHONES);
  const avatars = first(user['contact.avatar_url'], AVATARS);
  const names = first(user['contact.display_name'], DISPLAY_NAMES);
  let n = 9000;
  const contactForm = (style: UsernameStyle, phone: string, extra: Pairs = []): Pairs => [
    ['username', usernameFor('sample', ++n, style, true)],
    ['phone_number', phoneFor(n, phone)],
    ...extra,
  ];
  const made = new Map<string, Exchange>();
  let last: Exchange | undefined;
  const tryContact = async (form: Pairs): Promise<string | undefined> => {
    last = await postContact(form, { discovering: true });
    const id = idOf(last);
    if (id) made.set(id, last);
    return id;
  };

  // 1. A contact: the first guesses together, else the required fields alone, combination by
  // combination, then each optional field on its own.
  let style: UsernameStyle | undefined;
  let phone: string | undefined;
  let avatar: string | undefined;
  let displayName: string | undefined;
  let contactId = await tryContact(
    contactForm(styles[0]!, phones[0]!, [
      ['avatar_url', avatars[0]!],
      ['display_name', names[0]!],
    ]),
  );
  if (contactId) [style, phone, avatar, displayName] = [styles[0], phones[0], avatars[0], names[0]];
  else {
    search: for (const s of styles)
      for (const p of phones) {
        contactId = await tryContact(contactForm(s, p));
        if (contactId) {
          [style, phone] = [s, p];
          break search;
        }
      }
    if (!contactId) {
      // Perhaps the server wants what the document calls optional: that is judged by the rules.
      search: for (const s of styles)
        for (const p of phones) {
          contactId = await tryContact(
            contactForm(s, p, [
              ['avatar_url', avatars[0]!],
              ['display_name', names[0]!],
            ]),
          );
          if (contactId) {
            [style, phone, avatar, displayName] = [s, p, avatars[0], names[0]];
            break search;
          }
        }
    }
    if (style && phone && avatar === undefined) {
      for (const a of avatars)
        if (await tryContact(contactForm(style, phone, [['avatar_url', a]]))) {
          avatar = a;
          break;
        }
      for (const d of names)
        if (await tryContact(contactForm(style, phone, [['display_name', d]]))) {
          displayName = d;
          break;
        }
    }
  }
  if (style && phone) {
    found.contact = { username: style, phone, avatar, displayName };
    observe('accepted sample: phone_number', phone);
    observe('accepted sample: username', usernameFor('sample', 1, style));
    observe('accepted sample: avatar_url', avatar ?? 'none of those the kit tried');
    observe('accepted sample: display_name', displayName ?? 'none of those the kit tried');
    if (!avatar) found.missing['contact.avatar_url'] = `refused: ${describeExchange(last!, 200)}`;
    if (!displayName) found.missing['contact.display_name'] = `refused: ${describeExchange(last!, 200)}`;
  } else {
    found.missing['contact.phone_number'] = last ? contactsRefused(last, styles, phones) : 'got no answer';
    await formsRefused(contactForm(styles[0]!, phones[0]!), last);
  }

  // 2. A message in that contact's conversation, its attachments and reactions.
  const conversation = contactId ? await conversationOf(contactId, made.get(contactId)!) : undefined;
  if (conversation) {
    const texts = first(user['message.message'], ['sample message', 'Hello']);
    let messageId: string | undefined;
    for (const text of texts) {
      last = await postMessage(
        [
          ['conversation_id', conversation],
          ['message', text],
        ],
        { discovering: true },
      );
      messageId = idOf(last);
      if (messageId) {
        found.message = text;
        break;
      }
    }
    if (!messageId) found.missing['message.message'] = `refused: ${describeExchange(last!, 200)}`;
    else {
      const shapes = first(user['message.attachment']?.map(attachmentKeysOf), ATTACHMENT_SHAPES);
      for (const keys of shapes) {
        const sent = await postMessage(
          [
            ['conversation_id', conversation],
            ['message', found.message!],
            ...attachmentPairs(0, 'sample.pdf', keys),
          ],
          { discovering: true },
        );
        const id = idOf(sent);
        if (id) {
          found.attachment = keys;
          await deleteResource('message', id);
          break;
        }
      }
      observe(
        'accepted sample: attachment fields',
        found.attachment ? found.attachment.join(', ') : 'none of the shapes the kit tried',
      );
      if (!found.attachment)
        found.missing['message.attachment'] = 'every attachment shape the kit tried was refused';
      const username = usernameFor('reactor', 1, style);
      let refused = false;
      for (const name of first(user['reaction.name'], REACTIONS)) {
        const answer = await send('PUT', recordPath('message', messageId), {
          form: [reactionPair(name, username)],
        });
        if (is2xx(answer) && found.reactions.length < 2) found.reactions.push(name);
        refused ||= !is2xx(answer);
        // A server that refuses a name the kit tried: for a profile, which of the others it takes.
        if (found.reactions.length === 2 && !(refused && config.profileOut)) break;
      }
      // Refused alone, perhaps only for want of a text (the rules judge that): with one.
      for (const name of found.reactions.length > 0 ? [] : first(user['reaction.name'], REACTIONS)) {
        const answer = await send('PUT', recordPath('message', messageId), {
          form: [['message', found.message!], reactionPair(name, username)],
        });
        if (is2xx(answer)) found.reactions.push(name);
        if (found.reactions.length === 2) break;
      }
      observe(
        'accepted sample: reaction names',
        found.reactions.length > 0 ? found.reactions.join(', ') : 'none of those the kit tried',
      );
      if (found.reactions.length === 0)
        found.missing['reaction.name'] = 'every reaction name the kit tried was refused';
      await deleteResource('message', messageId);
    }
  }
  // Made like the first (with the avatar it took): it adds no observation of its own.
  const spare =
    style && phone && found.message
      ? await tryContact(contactForm(style, phone, avatar === undefined ? [] : [['avatar_url', avatar]]))
      : undefined;
  const witness = spare && (await witnessOf(spare, made.get(spare)!, found, style!));
  for (const id of made.keys()) if (id !== witness) await deleteResource('contact', id);
  return found;
}

/**
 * A contact, made after the first (whose answers the rules' tests never read again, so that only
 * the judge of every exchange sees them), with a message sent and deleted in its conversation. It
 * stays until the run's end (the bin deletes what is left after the last sweep): the last sweep
 * reads that message again there, long after its delete, in a conversation still alive, where one
 * that came back would show (every other deleted message's conversation is gone by then, and
 * could take it along). The contact's id, or undefined (and nothing kept) when a step is refused.
 *
 * Beside it, what a write did, kept as long: the contact renamed and a second message updated
 * (a new text, a reaction, an attachment), each read back at once. The last sweep reads them again
 * at the run's end, seconds later, and the judge holds those reads to these: a change that does
 * not last (a name, a reaction or updated_at that goes back after a while) shows there.
 */
async function witnessOf(
  id: string,
  created: Exchange,
  found: Found,
  style: UsernameStyle,
): Promise<string | undefined> {
  const conversation = await conversationOf(id, created);
  if (!conversation) return undefined;
  const text = found.message!;
  const inConversation: Pairs = [
    ['conversation_id', conversation],
    ['message', text],
  ];
  const sent = idOf(await postMessage(inConversation, { discovering: true }));
  if (!sent || !(await deleteResource('message', sent))) return undefined;
  const kept = idOf(await postMessage(inConversation, { discovering: true }));
  if (kept) {
    const path = recordPath('message', kept);
    const reaction = found.reactions[0];
    await send('PUT', path, {
      form: [
        ['message', `${text}, edited`],
        ...(reaction ? [reactionPair(reaction, usernameFor('reactor', 2, style))] : []),
        ...(found.attachment ? attachmentPairs(0, 'kept.pdf', found.attachment) : []),
      ],
    });
    await send('GET', path);
  }
  const name = found.contact?.displayName;
  if (name) {
    const contactPath = recordPath('contact', id);
    await send('PUT', contactPath, { form: [['display_name', name]] });
    await send('GET', contactPath);
  }
  return id;
}

async function conversationOf(contactId: string, created: Exchange): Promise<string | undefined> {
  const body = created.body as Record<string, unknown> | undefined;
  if (body && typeof body.conversation_id === 'string' && body.conversation_id !== '')
    return body.conversation_id;
  const again = await send('GET', recordPath('contact', contactId));
  const stored = again.body as Record<string, unknown> | undefined;
  return is2xx(again) && stored && typeof stored.conversation_id === 'string'
    ? stored.conversation_id
    : undefined;
}
