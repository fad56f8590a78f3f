/**
 * The route table: which operation of the catalogue a request's method and path reach, in a Zulip server's
 * order (no route is 404, no route for the method 405, OPTIONS lists the methods).
 */
import { operationsByArea, type AreaName } from '../api/catalogue.js';
import { ApiError } from '../api/errors.js';
import type { Operation } from '../api/operation.js';
import { servedAt } from '../api/param-levels.js';

export interface Route {
  op: Operation;
  area: AreaName;
  regex: RegExp;
  names: string[];
  /** Literal segments first, then integer captures, then free ones: `/users/me` beats `/users/{id}`. */
  rank: number;
  /** The path's first segment when it is literal (`users` of `/users/{id}`); null when it is a parameter. */
  head: string | null;
}

/** The first segment of a request path (`users` of `/users/me`). */
const headOf = (path: string): string => {
  const end = path.indexOf('/', 1);
  return path.slice(1, end < 0 ? undefined : end);
};

function compile(op: Operation, area: AreaName): Route {
  const names: string[] = [];
  let rank = 0;
  const pattern = op.path
    .split('/')
    .map((segment) => {
      const m = /^\{(\w+)\}$/.exec(segment);
      if (!m) {
        rank += 100;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      names.push(m[1]!);
      const isInt = op.params[m[1]!]?.schema.t === 'int';
      rank += isInt ? 10 : 1;
      return isInt ? '([0-9]+)' : '([^/]+)';
    })
    .join('/');
  const head = headOf(op.path);
  return { op, area, regex: new RegExp(`^${pattern}/?$`), names, rank, head: /^\{\w+\}$/.test(head) ? null : head };
}

/** A route a request's path matched, with the path's captures. */
export interface Hit {
  route: Route;
  match: RegExpExecArray;
}

export class Routes {
  /**
   * The routes a path can match, by its first segment, each list in rank order: a request tries the dozen
   * routes of its area rather than every route's pattern. Routes that start with a parameter are in every
   * list, and are the whole list of a segment no route names.
   */
  private readonly byHead = new Map<string, Route[]>();
  private readonly headless: Route[];

  constructor() {
    const routes = (Object.entries(operationsByArea) as [AreaName, readonly Operation[]][])
      .flatMap(([area, ops]) => ops.filter((op) => op.before === undefined).map((op) => compile(op, area)))
      .sort((a, b) => b.rank - a.rank);
    this.headless = routes.filter((r) => r.head === null);
    for (const { head } of routes) {
      if (head !== null && !this.byHead.has(head))
        this.byHead.set(
          head,
          routes.filter((r) => r.head === head || r.head === null),
        );
    }
  }

  /** The routes whose path template matches among those a server at `level` has, best-ranked first. */
  private candidates(path: string, level: number): Hit[] {
    const out: Hit[] = [];
    for (const route of this.byHead.get(headOf(path)) ?? this.headless) {
      if (!servedAt(route.op, level)) continue;
      const match = route.regex.exec(path);
      if (match) out.push({ route, match });
    }
    return out;
  }

  /** The operation a request reaches, if any (several templates can match one path: the best-ranked one that takes the method wins). */
  match(method: string, path: string, level: number): Operation | undefined {
    const lookup = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.candidates(path, level).find((c) => c.route.op.method === lookup)?.route.op;
  }

  /**
   * The route a request reaches at a server of feature level `level`, in a Zulip server's order: no route is
   * 404, no route for the method 405 (an operation that level lacks is no route); null for OPTIONS, which every
   * route answers with its methods (`allowed`).
   */
  resolve(method: string, path: string, level: number): { hit: Hit } | { hit: null; allowed: string[] } {
    const candidates = this.candidates(path, level);
    if (candidates.length === 0) throw new ApiError('Not Found', 'BAD_REQUEST', 404);
    const upper = method.toUpperCase();
    const lookup = upper === 'HEAD' ? 'GET' : upper;
    const hit = upper === 'OPTIONS' ? undefined : candidates.find((c) => c.route.op.method === lookup);
    if (hit) return { hit };
    const allowed = allowedMethods(candidates.filter((c) => c.route.rank === candidates[0]!.route.rank).map((c) => c.route.op.method));
    // zerver/lib/rest.py get_target_view_function_or_response: OPTIONS lists them sorted, a 405 as declared.
    if (upper === 'OPTIONS') return { hit: null, allowed: allowed.sort() };
    // zerver/lib/response.py json_method_not_allowed: Django's HttpResponseNotAllowed with a JSON body and no code.
    throw new ApiError('Method Not Allowed', null, 405, { allowed_methods: allowed }, { allow: allowed.join(', ') });
  }
}

/**
 * The methods a path takes, as a Zulip server lists them: every route's, then HEAD wherever GET is (rest.py
 * adds it, and Django answers HEAD with the GET view: so does the route table, `lookup` above).
 */
function allowedMethods(methods: readonly string[]): string[] {
  const out = [...new Set(methods)];
  if (out.includes('GET')) out.push('HEAD');
  return out;
}
