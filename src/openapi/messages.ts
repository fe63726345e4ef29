import type { AttachmentInput, MessageSendInput, MessageUpdateInput } from '../input/operations';
import {
  DEFAULT_FILE_TYPE,
  FILE_SIZE,
  FILE_TYPE,
  FILENAME,
  ID,
  MESSAGE_TEXT,
  REACTION_NAME,
} from '../resources/formats';
import {
  answer,
  body,
  inputSchema,
  integerSchema,
  nullable,
  operation,
  orEmpty,
  paging,
  parameterRef,
  queryParameter,
  recordPath,
  reactionUsernames,
  ref,
  refusal,
  refusals,
  stringSchema,
  urlSchema,
  worldFull,
  type Part,
  type Schema,
  type Texts,
} from './schemas';
import { LIMITS } from '../input/limits';

/** The five message operations of document 4.2, with the bodies input/operations.ts reads for them. */
export function messages(): Part {
  return {
    paths: {
      '/v1/messages': collection(),
      '/v1/messages/{id}': recordPath('messages', 'Message', {
        retrieve: {
          summary: 'Retrieve a message.',
          description:
            "The message with this id, its `contact` as that contact is now (C11). An id this token's world does not hold, or a deleted message's, is 404 `not_found`.",
        },
        update: {
          summary: 'Edit the text, add reactions, append attachments.',
          description:
            '`message` replaces the text; `reactions` and `attachments` are added to those the message has, and none is ever taken away (C15, C16). Every update that succeeds sets `updated_at`.',
        },
        delete: {
          summary: 'Delete a message permanently.',
          description: 'The message is gone for good: the next retrieve of it is 404 `not_found`.',
        },
      }),
    },
    parameters: {
      conversation_id: queryParameter('conversation_id', stringSchema(ID), 'Only this conversation.'),
    },
    schemas: { MessageSend: messageSend(), MessageUpdate: messageUpdate() },
  };
}

const op = (operationId: string, fields: Texts & Schema) => operation('messages', operationId, fields);
const noSuchConversation = () => refusal('not_found', 'No such conversation (param conversation_id).');

function collection(): Schema {
  return {
    get: op('listMessages', {
      summary: 'List messages, newest first, of one conversation or of all.',
      description:
        'A page of messages, the most recently created first (C7), paged as contacts are (C8). With `conversation_id`, only that conversation’s messages; a conversation this token does not have (its contact deleted, say) is 404 `not_found` (C10).',
      parameters: [...paging(), parameterRef('conversation_id')],
      responses: {
        ...answer('200', 'A page of messages.', 'MessagePage'),
        ...noSuchConversation(),
        ...refusals(),
      },
    }),
    post: op('sendMessage', {
      summary: 'Send a message into a conversation.',
      description:
        'Sends `message` into the conversation `conversation_id`, with the `attachments` given. Its `contact` is the contact the conversation is held with (C11); `read_at` and `updated_at` are null, and `reactions` is empty.',
      requestBody: body(ref('MessageSend')),
      responses: {
        ...answer('201', 'The sent message.', 'Message'),
        ...noSuchConversation(),
        ...worldFull(),
        ...refusals(),
      },
    }),
  };
}

function messageSend(): Schema {
  return inputSchema<MessageSendInput>(
    {
      conversation_id: stringSchema(ID),
      message: stringSchema(MESSAGE_TEXT),
      attachments: attachments(),
    },
    ['conversation_id', 'message'],
  );
}

function messageUpdate(): Schema {
  return inputSchema<MessageUpdateInput>({
    message: stringSchema(MESSAGE_TEXT),
    reactions: {
      description:
        'Form: reactions[<name>][]=<username>. JSON: [{"<name>": ["<username>"]}] or {"<name>": ["<username>"]}. Adds.',
      oneOf: [
        { type: 'array', items: ref('Reaction') },
        {
          type: 'object',
          propertyNames: stringSchema(REACTION_NAME),
          additionalProperties: reactionUsernames(),
        },
      ],
    },
    attachments: attachments(),
  });
}

/** The attachments one request adds (input/operations.ts attachmentList). */
function attachments(): Schema {
  const attachment = inputSchema<AttachmentInput>(
    {
      filename: stringSchema(FILENAME),
      file_url: urlSchema(),
      file_type: {
        ...orEmpty(stringSchema(FILE_TYPE), `Absent or empty: ${DEFAULT_FILE_TYPE}.`),
        default: DEFAULT_FILE_TYPE,
      },
      file_size: nullable(integerSchema(FILE_SIZE)),
    },
    ['filename', 'file_url'],
  );
  return { type: 'array', maxItems: LIMITS.attachmentsPerRequest, items: attachment };
}
