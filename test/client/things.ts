/** Test-local operations for the client tests: what matters is only their method, path and idempotency. */
import { operation, p } from '../../src/api/operation.js';
import { s } from '../../src/api/schema.js';

export const createThing = operation<{ id: number }>()({
  name: 'create-thing',
  method: 'POST',
  path: '/things',
  summary: 'creates',
  access: 'user',
  params: { name: p.req(s.string()) },
});

export const setThing = operation<Record<string, never>>()({
  name: 'set-thing',
  method: 'POST',
  path: '/things/1',
  summary: 'sets',
  access: 'user',
  params: { value: p.req(s.string()) },
  idempotent: true,
});

export const removeThing = operation<Record<string, never>>()({
  name: 'remove-thing',
  method: 'DELETE',
  path: '/things/{id}',
  summary: 'removes',
  access: 'user',
  params: { id: p.path(s.int()) },
});
