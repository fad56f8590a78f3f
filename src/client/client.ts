/**
 * The one client: typed calls from the catalogue, over any transport. It encodes parameters the way a
 * Zulip server expects (query string for GET, form body otherwise; strings as they are, everything else
 * JSON), authenticates with HTTP Basic, and turns error envelopes into ApiError.
 */
import { ApiError } from '../api/errors.js';
import { fillPath, type CallParamsOf, type Operation, type ResponseOf } from '../api/operation.js';
import { encodeWire, isPlainObject } from '../api/schema.js';
import type { SuccessEnvelope } from '../api/types.js';
import { basicAuthHeader, type UploadedFile, type WireRequest, type WireResponse } from '../api/wire.js';
import type { Transport } from './transport.js';

export interface Credentials {
  email: string;
  apiKey: string;
}

export interface ClientHooks {
  /** Warnings for the user (ignored parameters ...), never data. */
  warn?: (message: string) => void;
  /** One line per request and response, for --verbose; never carries credentials. */
  trace?: (line: string) => void;
}

/** A reply that is not the JSON envelope of a Zulip server: an HTML error page from a proxy, say. */
export class BadResponseError extends Error {
  constructor(
    readonly status: number,
    readonly excerpt: string,
  ) {
    super(`unexpected ${status} response from the server${excerpt ? `: ${excerpt}` : ''}`);
    this.name = 'BadResponseError';
  }
}

export type Success<O> = ResponseOf<O> & SuccessEnvelope;

export class ChatClient {
  constructor(
    readonly transport: Transport,
    readonly credentials: Credentials | null,
    private readonly hooks: ClientHooks = {},
  ) {}

  /** Builds the wire request of an operation call (also what --dry-run shows). */
  encode<O extends Operation>(op: O, params: CallParamsOf<O>, files?: UploadedFile[]): WireRequest {
    const values = (params ?? {}) as Record<string, unknown>;
    const encoded: [string, string][] = [];
    for (const [name, value] of Object.entries(values)) {
      const def = op.params[name];
      if (!def) throw new Error(`${op.name} has no parameter ${name}`);
      if (def.in === 'path' || value === undefined) continue;
      encoded.push([name, encodeWire(def.schema, value)]);
    }
    const inQuery = op.method === 'GET';
    const headers: Record<string, string> = {};
    if (op.access !== 'none' && this.credentials) {
      headers['authorization'] = basicAuthHeader(this.credentials.email, this.credentials.apiKey);
    }
    return {
      method: op.method,
      path: fillPath(op.path, values),
      query: inQuery ? encoded : [],
      body: inQuery ? [] : encoded,
      files,
      headers,
    };
  }

  async call<O extends Operation>(
    op: O,
    params: CallParamsOf<O>,
    opts: { files?: UploadedFile[]; signal?: AbortSignal } = {},
  ): Promise<Success<O>> {
    const res = await this.send(this.encode(op, params, opts.files), opts.signal);
    return unwrap(res) as Success<O>;
  }

  /** Sends a prepared request; the raw response comes back whatever its status (`chatctl api`). */
  async send(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    this.hooks.trace?.(`> ${req.method} ${req.path}${req.query.length ? `?${new URLSearchParams(req.query)}` : ''}`);
    const res = await this.transport.send(req, signal);
    this.hooks.trace?.(`< ${res.status}`);
    const body = res.body;
    if (isPlainObject(body) && Array.isArray(body.ignored_parameters_unsupported) && body.ignored_parameters_unsupported.length) {
      this.hooks.warn?.(`the server ignored parameters it does not support: ${body.ignored_parameters_unsupported.join(', ')}`);
    }
    return res;
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** The success body, or the error the response stands for. */
export function unwrap(res: WireResponse): Record<string, unknown> {
  const body = res.body;
  if (!isPlainObject(body) || (body.result !== 'success' && body.result !== 'error')) {
    const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
    throw new BadResponseError(res.status, excerpt(text));
  }
  if (body.result === 'success' && res.status < 400) return body;
  const { result: _result, msg, code, ...extra } = body;
  throw new ApiError(
    typeof msg === 'string' ? msg : `HTTP ${res.status}`,
    typeof code === 'string' ? code : null,
    res.status,
    extra,
    res.headers,
  );
}

/** The first line of text in a reply, tags stripped: enough to recognise a proxy's error page. */
function excerpt(text: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > 120 ? `${plain.slice(0, 117)}...` : plain;
}
