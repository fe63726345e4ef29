import type { Router } from 'express';
import { collectionRoutes } from '../http/resource';
import * as rules from '../store/rules';
import type { World } from '../store/world';
import type { Message } from '../types';

export interface MessagesOptions {
  /** Told of every message sent through the API (the simulated conversation listens). */
  onSent?: (world: World, message: Message) => void;
}

/** The five message operations of document 4.2. */
export function messageRoutes(router: Router, options: MessagesOptions = {}): void {
  collectionRoutes<Message>(router, '/v1/messages', {
    name: 'message',
    list: (world, params) => world.listMessages(rules.messageList(params)),
    create: (world, params) => {
      const message = world.sendMessage(rules.messageSend(params));
      options.onSent?.(world, message);
      return message;
    },
    retrieve: (world, id) => world.getMessage(id),
    update: (world, id, params) =>
      world.getMessage(id) && world.updateMessage(id, rules.messageUpdate(params)),
    remove: (world, id) => world.deleteMessage(id),
  });
}
