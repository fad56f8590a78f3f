/**
 * Lists that carry their JSON text beside their values. A server that keeps the JSON of what it renders often
 * (a user's wire form, a message's: server/model/rendered-cache.ts) answers with the values as ever, and the
 * text goes with the array, so that whoever writes the answer as JSON (`chatctl serve`, the answer cache)
 * joins the kept texts instead of encoding every element again. Who reads values (the embedded transport)
 * sees an ordinary array. The text is exactly what JSON.stringify makes of the elements, so an answer's bytes
 * are the same either way.
 */

const texts = new WeakMap<readonly unknown[], string>();

/** `values`, with `json` (the elements' JSON joined by commas, without brackets) kept beside it. */
export function withJson<T>(values: T[], json: string): T[] {
  texts.set(values, json);
  return values;
}

/** The elements of `values` as JSON without the brackets: the text kept with them, else encoded now. */
export function elementsJson(values: readonly unknown[]): string {
  return texts.get(values) ?? JSON.stringify(values).slice(1, -1);
}

/** Whether `value` is a list that carries its JSON. */
export const carriesJson = (value: unknown): value is unknown[] => Array.isArray(value) && texts.has(value);

/** A value's JSON text: a list's kept text in brackets, anything else as JSON.stringify writes it (undefined: none). */
export const valueJson = (value: unknown): string | undefined => (carriesJson(value) ? `[${elementsJson(value)}]` : JSON.stringify(value));

/** An answer's JSON text, byte for byte JSON.stringify's, with the kept text of every top-level list that carries one. */
export function answerJson(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Object.values(body).some(carriesJson)) return JSON.stringify(body);
  let out = '';
  for (const [key, value] of Object.entries(body)) {
    const json = valueJson(value);
    // JSON.stringify leaves out keys whose value has no JSON form (undefined).
    if (json === undefined) continue;
    out += `${out ? ',' : '{'}${JSON.stringify(key)}:${json}`;
  }
  return out ? `${out}}` : '{}';
}
