/**
 * How the organization planner compares a membership (a group's members or subgroups, a channel's
 * subscribers): the members wanted and not there are added, in the order they are wanted; with the members
 * there and not wanted removed, in the order they are there. Never the list replaced whole. `org plan` and
 * `channels sync --map` both decide who joins and who leaves with it.
 */
export function membershipDiff<M>(want: readonly M[], have: readonly M[], norm: (member: M) => unknown): { add: M[]; remove: M[] } {
  const wanted = new Set(want.map(norm));
  const there = new Set(have.map(norm));
  return { add: want.filter((m) => !there.has(norm(m))), remove: have.filter((m) => !wanted.has(norm(m))) };
}
