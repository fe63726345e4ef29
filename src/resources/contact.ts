import { DISPLAY_NAME, PHONE_NUMBER, USERNAME, defaultAvatarUrl } from './formats';
import { id, text, timestamp, url } from './field';

/**
 * A contact (document 2.1): each field's type, its checks, where its value comes from on create,
 * whether an update takes it and whether a message's contact shows it. The order is the
 * document's, and every answer's.
 */
export const CONTACT = {
  id: id({ sender: true, create: { by: 'id', of: 'contact' } }),
  username: text(USERNAME, { sender: true, create: { by: 'input', required: true, example: 'alice' } }),
  phone_number: text(PHONE_NUMBER, {
    sender: true,
    create: { by: 'input', required: true, example: '+15550102030' },
  }),
  avatar_url: url({
    sender: true,
    create: {
      by: 'input',
      required: false,
      fallback: (given) => defaultAvatarUrl(String(given.username)),
      note: 'Absent or empty: a picture of the initials.',
    },
  }),
  display_name: text(DISPLAY_NAME, {
    nullable: true,
    note: 'Defaults to the username; null when cleared.',
    create: {
      by: 'input',
      required: false,
      fallback: (given) => String(given.username),
      note: 'Absent or empty: the username.',
    },
    update: { note: 'Empty or null: null.' },
  }),
  conversation_id: id({ create: { by: 'id', of: 'conversation' } }),
  last_active_at: timestamp({
    nullable: true,
    sender: true,
    note: 'Null for a contact never active (a new one).',
    create: { by: 'value', value: null },
  }),
  created_at: timestamp({ sender: true, create: { by: 'clock' } }),
};
