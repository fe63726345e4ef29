import type { Router } from 'express';
import { collectionRouter } from '../http/resource';
import type { Contact } from '../types';

/** The five contact operations of document 4.1. */
export function contactsRouter(): Router {
  return collectionRouter<Contact>({
    name: 'contact',
    list: (world, params) => world.listContacts(params),
    create: (world, params) => world.createContact(params),
    retrieve: (world, id) => world.getContact(id),
    update: (world, id, params) => world.updateContact(id, params),
    remove: (world, id) => world.deleteContact(id),
  });
}
