import type { Router } from 'express';
import { collectionRouter } from '../http/resource';
import type { Message } from '../types';

/** The five message operations of document 4.2. */
export function messagesRouter(): Router {
  return collectionRouter<Message>({
    name: 'message',
    list: (world, params) => world.listMessages(params),
    create: (world, params) => world.sendMessage(params),
    retrieve: (world, id) => world.getMessage(id),
    update: (world, id, params) => world.updateMessage(id, params),
    remove: (world, id) => world.deleteMessage(id),
  });
}
