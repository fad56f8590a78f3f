// Builds an embedded organization of `users` users for the scale benchmark, through the project's own bulk
// path (dist/server/model/bulk-seed.js, channels and groups through their model functions), in a few
// transactions. What it holds, per organization of N users:
// - N users (the owner, ~1% administrators, ~10% guests, the rest members), none with a password;
// - `big` (a default channel) and `everyone`: every user subscribed; `ten`: the owner and 9 others;
//   N/20 small channels (at least 20) of 10-50 members; `target-1` ... `target-30`: empty, for subscribing;
// - min(N/100, 200) user groups of 10-100 members (one through the model, the others copies of its settings);
// - 10 × N channel messages (1,000,000 at 100,000 users): 70% in `big`, 10% in `everyone`, 20% in the small
//   channels, 20 topics per channel. Small channels' messages are copied to every subscriber; the two big
//   channels' to the sender and the owner only, the others standing for Zulip's long-term idle users (who get
//   no copy until they come back): a copy per member would be 10^11 rows at the largest size.
import { join } from 'node:path';

export const TARGET_CHANNELS = 30;
const BATCH = 50_000;

/** A small deterministic generator, so every run seeds the same organization. */
export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct elements of `from`, picked with `rand`. */
export function sample(rand, from, count) {
  const picked = new Set();
  while (picked.size < Math.min(count, from.length)) picked.add(from[Math.floor(rand() * from.length)]);
  return [...picked];
}

function* chunks(total, size) {
  for (let start = 0; start < total; start += size) yield [start, Math.min(total, start + size)];
}

export async function seedOrganization(root, dataDir, users, log = () => {}) {
  let mark = process.hrtime.bigint();
  const stage = (what) => {
    const t = process.hrtime.bigint();
    log(`${what}: ${(Number(t - mark) / 1e6).toFixed(0)} ms`);
    mark = t;
  };
  const { openDb } = await import(join(root, 'dist/server/store/db.js'));
  const { createOrganization } = await import(join(root, 'dist/server/setup.js'));
  const { seedUsers, seedSubscriptions, seedGroupLike, seedMessages } = await import(join(root, 'dist/server/model/bulk-seed.js'));
  const { insertChannel } = await import(join(root, 'dist/server/model/channels.js'));
  const { createGroup } = await import(join(root, 'dist/server/model/group-changes.js'));
  const { hashPassword } = await import(join(root, 'dist/server/secrets.js'));

  const rand = prng(users);
  const db = openDb(dataDir);
  // A page cache large enough for the per-user copies, which go in all over the (user, message) key.
  db.pragma('cache_size = -1000000');
  db.pragma('foreign_keys = OFF');
  const now = Math.floor(Date.now() / 1000);
  const owner = createOrganization(db, {
    name: 'Scale',
    ownerEmail: 'owner@scale.test',
    ownerName: 'Owner',
    passwordHash: await hashPassword('scale-password'),
    now,
  });
  const ids = [owner.id];
  for (const [from, to] of chunks(users - 1, BATCH)) {
    db.transaction(() => {
      const rows = [];
      for (let i = from + 1; i <= to; i++)
        rows.push({ email: `user${i}@scale.test`, full_name: `User ${i}`, role: i % 100 === 0 ? 200 : i % 10 === 1 ? 600 : 400 });
      ids.push(...seedUsers(db, rows, now));
    })();
  }
  stage('users');
  const others = ids.slice(1);
  const channel = (name, isDefault = false) =>
    insertChannel(
      db,
      { name, description: `The ${name} channel`, invite_only: false, is_web_public: false, folder_id: null, is_default: isDefault, creator_id: owner.id },
      now,
    ).id;
  const small = [];
  const channels = db.transaction(() => {
    const big = channel('big', true);
    const everyone = channel('everyone');
    seedSubscriptions(db, big, ids);
    seedSubscriptions(db, everyone, ids);
    const ten = channel('ten');
    seedSubscriptions(db, ten, [owner.id, ...others.slice(0, 9)]);
    const targets = [];
    for (let r = 1; r <= TARGET_CHANNELS; r++) targets.push(channel(`target-${r}`));
    for (let c = 0; c < Math.max(20, users / 20); c++) {
      const members = sample(rand, ids, 10 + Math.floor(rand() * 41));
      const id = channel(`small-${c}`);
      seedSubscriptions(db, id, members);
      small.push({ id, members });
    }
    return { big, everyone, ten, targets };
  })();
  stage('channels and subscriptions');
  const discard = { emit() {} };
  db.transaction(() => {
    const members = () => sample(rand, others, 10 + Math.floor(rand() * 91));
    // One group through the model (its default settings), the others copies of it.
    const template = createGroup(db, discard, owner, { name: 'group-0', description: 'A seeded group', members: members() }, now);
    for (let g = 1; g < Math.min(users / 100, 200); g++) seedGroupLike(db, template, `group-${g}`, members());
  })();
  stage('groups');

  const messages = users * 10;
  const bigIds = [];
  for (const [from, to] of chunks(messages, BATCH)) {
    db.transaction(() => {
      const batch = [];
      for (let i = from; i < to; i++) {
        const pick = rand();
        let target;
        if (pick < 0.7) target = { id: channels.big, copies: [owner.id], senders: ids };
        else if (pick < 0.8) target = { id: channels.everyone, copies: [owner.id], senders: ids };
        else {
          const s = small[Math.floor(rand() * small.length)];
          target = { id: s.id, copies: s.members, senders: s.members };
        }
        batch.push({
          senderId: target.senders[Math.floor(rand() * target.senders.length)],
          channelId: target.id,
          topic: `topic ${i % 20}`,
          text: `Seeded message ${i}`,
          dateSent: now - messages + i,
          recipientIds: target.copies,
        });
      }
      const last = seedMessages(db, batch);
      // IDs are consecutive within one transaction: recover those of `big` from the batch's last one.
      batch.forEach((m, k) => {
        if (m.channelId === channels.big) bigIds.push(last - batch.length + 1 + k);
      });
    })();
  }
  stage('messages');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { owner, ids, channels, bigIds, messages, groups: Math.min(users / 100, 200), smallChannels: small.length };
}
