import type { Router } from 'express';
import { collectionRoutes } from '../http/resource';
import * as rules from '../store/rules';
import type { Contact } from '../types';

/** The five contact operations of document 4.1. */
export function contactRoutes(router: Router): void {
  collectionRoutes<Contact>(router, '/v1/contacts', {
    name: 'contact',
    list: (world, params) => world.listContacts(rules.contactList(params)),
    create: (world, params) => world.createContact(rules.contactCreate(params)),
    retrieve: (world, id) => world.getContact(id),
    update: (world, id, params) =>
      world.getContact(id) && world.updateContact(id, rules.contactUpdate(params)),
    remove: (world, id) => world.deleteContact(id),
  });
}
