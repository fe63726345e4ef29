import { FILE_SIZE, FILE_TYPE, FILENAME } from './formats';
import { id, integer, text, timestamp, url } from './field';

/**
 * An attachment of a message (document 2.2), in the document's order. A request adds one with
 * its message (input/operations.ts reads its four inputs); the store makes its id and time.
 */
export const ATTACHMENT = {
  id: id({ create: { by: 'id', of: 'attachment' } }),
  message_id: id({ create: { by: 'store' } }),
  filename: text(FILENAME, { create: { by: 'store' } }),
  file_url: url({ create: { by: 'store' } }),
  file_type: text(FILE_TYPE, { create: { by: 'store' } }),
  file_size: integer(FILE_SIZE, { nullable: true, create: { by: 'store' } }),
  created_at: timestamp({ create: { by: 'clock' } }),
};
