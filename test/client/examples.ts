/**
 * Response bodies as the real Zulip server documents them: the `example` objects of zulip.yaml, so mocked
 * servers answer with the documented shapes rather than shapes made up for the test.
 */
import { readZulipOpenApi } from '../helpers/zulip-openapi.js';

type Node = Record<string, unknown>;
let spec: Node | undefined;

const load = (): Node => (spec ??= readZulipOpenApi() as Node);

function resolveRef(node: unknown): Node {
  let cur = node as Node;
  while (cur && typeof cur.$ref === 'string') {
    cur = (cur.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((n, key) => (n as Node)[key.replace(/~1/g, '/').replace(/~0/g, '~')], load()) as Node;
  }
  return cur;
}

/** The first `example` in a schema, looking through $ref, allOf, oneOf and anyOf. */
function exampleOf(schema: unknown): Record<string, unknown> | undefined {
  const s = resolveRef(schema);
  if (!s) return undefined;
  if (s.example && typeof s.example === 'object') return structuredClone(s.example) as Record<string, unknown>;
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    for (const part of (s[key] as unknown[] | undefined) ?? []) {
      const found = exampleOf(part);
      if (found) return found;
    }
  }
  return undefined;
}

/** The documented example body of `METHOD path` answering `status`. */
export function documentedExample(method: string, path: string, status = 200): Record<string, unknown> {
  const paths = load().paths as Record<string, Node>;
  const response = resolveRef(((paths[path]?.[method.toLowerCase()] as Node | undefined)?.responses as Node | undefined)?.[String(status)]);
  const content = (response?.content as Node | undefined)?.['application/json'] as Node | undefined;
  const example = content && (content.example ? structuredClone(content.example as Record<string, unknown>) : exampleOf(content.schema));
  if (!example) throw new Error(`zulip.yaml documents no example for ${method} ${path} ${status}`);
  return example;
}

/** The example of a named component schema (RateLimitedError ...). */
export function schemaExample(name: string): Record<string, unknown> {
  const example = exampleOf({ $ref: `#/components/schemas/${name}` });
  if (!example) throw new Error(`zulip.yaml has no example for ${name}`);
  return example;
}

/** Every documented path template with its methods and, per method, its parameters' descriptions by name. */
export function documentedParameters(): Map<string, Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, Map<string, string>>>();
  for (const [path, item] of Object.entries(load().paths as Record<string, Node>)) {
    const methods = new Map<string, Map<string, string>>();
    const shared = ((item.parameters as unknown[] | undefined) ?? []).map(resolveRef);
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || typeof op !== 'object' || op === null) continue;
      const params = new Map<string, string>();
      for (const p of [...shared, ...(((op as Node).parameters as unknown[] | undefined) ?? []).map(resolveRef)]) {
        if (p.in !== 'path') params.set(String(p.name), String(p.description ?? ''));
      }
      const content = ((op as Node).requestBody as Node | undefined)?.content as Node | undefined;
      for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
        const schema = resolveRef((content?.[type] as Node | undefined)?.schema);
        for (const [name, s] of Object.entries((schema?.properties as Node | undefined) ?? {})) params.set(name, String(resolveRef(s).description ?? ''));
      }
      methods.set(method.toUpperCase(), params);
    }
    out.set(path, methods);
  }
  return out;
}
