/**
 * `chatctl init --demo`: a small organization to explore, created through the API like any client would,
 * so the demo data is exactly what the operations produce.
 */
import { createUser } from '../api/operations/users.js';
import type { ChatClient } from '../client/client.js';

const DEMO_PASSWORD_LENGTH = 24;

export async function seedDemo(client: ChatClient): Promise<string> {
  const { randomAlphanumeric } = await import('./secrets.js');
  const people = [
    { email: 'iago@example.com', full_name: 'Iago' },
    { email: 'hamlet@example.com', full_name: 'King Hamlet' },
    { email: 'cordelia@example.com', full_name: 'Cordelia, Lear\'s daughter' },
    { email: 'polonius@example.com', full_name: 'Polonius' },
  ];
  for (const p of people) await client.call(createUser, { ...p, password: randomAlphanumeric(DEMO_PASSWORD_LENGTH) });
  return `${people.length} users`;
}
