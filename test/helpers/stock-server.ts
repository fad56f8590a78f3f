/**
 * A stock Zulip server stood in for by nock, for the tests of one suite: no real connection is made, and
 * GET /server_settings answers as a server at feature level 442 documents it. Each test adds its routes.
 */
import nock from 'nock';
import { afterEach, beforeEach } from 'vitest';
import { documentedExample } from '../client/examples.js';

export function standInStockServer(site: string): void {
  beforeEach(() => {
    nock.disableNetConnect();
    nock(site)
      .get('/api/v1/server_settings')
      .reply(200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: 442, realm_url: site, realm_uri: site })
      .persist();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
}
