import { describe, expect, it } from 'vitest';
import { openapiErrors } from '../helpers/openapi.js';

describe('OpenAPI response validation', () => {
  it('follows shared responses and catches a wrong body', () => {
    expect(openapiErrors('post', '/typing', 200, { result: 'success', msg: '' })).toEqual([]);
    expect(openapiErrors('post', '/typing', 200, { result: 'success' })).not.toEqual([]);
    expect(openapiErrors('get', '/users', 200, { result: 'success', msg: '', members: [{ user_id: 'x' }] })).not.toEqual([]);
  });
});
