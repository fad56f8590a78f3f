/**
 * A request and a response as they cross a transport: exactly what an HTTP request to /api/v1 carries,
 * with no HTTP in it. The embedded transport hands these to the router directly; `chatctl serve` and the
 * HTTP transport turn them into real HTTP.
 */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  data: Uint8Array;
}

export interface WireRequest {
  method: string;
  /** Path below /api/v1, starting with `/`, without a query string. */
  path: string;
  /** Query-string parameters, in order. */
  query: [string, string][];
  /** Form-body parameters (url-encoded or multipart), in order. */
  body: [string, string][];
  files?: UploadedFile[];
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The client's address over HTTP; absent in-process. */
  remoteAddress?: string;
  /**
   * The key of a list in the answer that the caller takes as it comes (a StreamedList in the body); absent:
   * the whole answer at once. Not sent: it tells the embedded router to keep the list streamed, and the HTTP
   * transport which list to read incrementally.
   */
  stream?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /**
   * The parsed JSON body (a non-JSON reply from a proxy arrives as a string). The list the request asked for
   * as a stream may be a StreamedList; the keys that follow it in the document are set on the body once the
   * list has been read to its end.
   */
  body: unknown;
  /** The body's JSON text, when the server holds it already (an answer it gave before): sent as it is. */
  text?: string;
}

export const basicAuthHeader = (email: string, apiKey: string): string => `Basic ${Buffer.from(`${email}:${apiKey}`, 'utf8').toString('base64')}`;
