import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminStack, startAdminStack } from './identityStack.ts';

/** The settings endpoints over HTTP, as the frontend uses them; who may call each is in accessMatrix.ts. */
let given: AdminStack;
beforeAll(async () => {
  given = await startAdminStack();
});
afterAll(() => given.stack.stop());
const call: AdminStack['call'] = (...args) => given.call(...args);

describe('settings over HTTP', () => {
  it('lists groups in exactly the documented shape', async () => {
    const response = await call('GET', '/api/settings/groups');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'success']);
    expect(body.success).toBe(true);
    const smtp = body.data.find((g: { id: string }) => g.id === 'smtp');
    expect(Object.keys(smtp).sort()).toEqual([
      'created_at',
      'description',
      'icon',
      'id',
      'name',
      'settings',
      'sort_order',
      'updated_at',
    ]);
    expect(Object.keys(smtp.settings[0]).sort()).toEqual([
      'created_at',
      'description',
      'is_encrypted',
      'key',
      'updated_at',
      'value',
    ]);
    expect(Number.isNaN(Date.parse(smtp.created_at))).toBe(false);
  });

  it('creates, reads, updates and deletes a setting, answering the envelope', async () => {
    const created = await call('POST', '/api/settings', {
      key: 'ops.banner',
      value: 'hello',
      description: 'Banner',
      group_id: 'global',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      success: true,
      data: { key: 'ops.banner', value: 'hello', group_id: 'global' },
    });
    expect((await call('PUT', '/api/settings/ops.banner', { value: 'bye' })).json().data.value).toBe('bye');
    expect((await call('GET', '/api/settings/ops.banner')).json().data.value).toBe('bye');
    expect((await call('GET', '/api/settings/group/global')).json().data.map((x: { key: string }) => x.key)).toContain(
      'ops.banner',
    );
    expect((await call('DELETE', '/api/settings/ops.banner')).json()).toEqual({
      success: true,
      data: { key: 'ops.banner', deleted: true },
    });
    expect((await call('GET', '/api/settings/ops.banner')).statusCode).toBe(404);
  });

  it('never sends an encrypted value back, in any response or log line', async () => {
    const secret = 'smtp-Pa55word-never-shown';
    const responses = [
      await call('PUT', '/api/settings/smtp.password', { value: secret }),
      await call('GET', '/api/settings/smtp.password'),
      await call('GET', '/api/settings'),
      await call('GET', '/api/settings/groups'),
      await call('POST', '/api/settings/search', { pattern: 'smtp.*' }),
      await call('POST', '/api/settings/bulk', { settings: [{ key: 'smtp.password', value: secret }] }),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain(secret);
    }
    expect(responses[1]?.json().data).toMatchObject({ value: null, has_value: true, is_encrypted: true });
    expect(given.stack.logs.text()).not.toContain(secret);
  });

  it('reports encryption health', async () => {
    const response = await call('GET', '/api/settings/health');
    expect(response.json()).toMatchObject({
      success: true,
      data: { encryption: { status: 'healthy', undecryptable: { count: 0, keys: [] } } },
    });
  });

  it('searches keys containing a plain pattern', async () => {
    const response = await call('POST', '/api/settings/search', { pattern: 'smtp' });
    expect(response.json().data.map((setting: { key: string }) => setting.key)).toHaveLength(7);
  });

  it.each([
    ['a missing value', 'POST', '/api/settings', { key: 'x.y' }, 400, 'validation_failed'],
    ['a missing key', 'POST', '/api/settings', { value: 'v' }, 400, 'validation_failed'],
    ['a value of the wrong type', 'POST', '/api/settings', { key: 'x.y', value: [1] }, 400, 'validation_failed'],
    [
      'an unknown field',
      'POST',
      '/api/settings',
      { key: 'x.y', value: 'v', category: 'old' },
      400,
      'validation_failed',
    ],
    ['an unknown group', 'POST', '/api/settings', { key: 'x.y', value: 'v', group_id: 'nope' }, 404, 'not_found'],
    ['a duplicate key', 'POST', '/api/settings', { key: 'smtp.host', value: 'v' }, 409, 'conflict'],
    ['an unknown key', 'GET', '/api/settings/no.such.key', undefined, 404, 'not_found'],
    ['a malformed key in the path', 'GET', '/api/settings/Not%20A%20Key', undefined, 400, 'validation_failed'],
    ['an empty update', 'PUT', '/api/settings/smtp.host', {}, 400, 'validation_failed'],
    ['an unknown group id', 'GET', '/api/settings/groups/nope', undefined, 404, 'not_found'],
    ['a group without a name', 'POST', '/api/settings/groups', { id: 'g1' }, 400, 'validation_failed'],
    ['a duplicate group', 'POST', '/api/settings/groups', { id: 'smtp', name: 'x' }, 409, 'conflict'],
    ['a search without pattern', 'POST', '/api/settings/search', {}, 400, 'validation_failed'],
    ['a search with SQL in it', 'POST', '/api/settings/search', { pattern: "%' OR 1=1 --" }, 400, 'validation_failed'],
    ['an empty bulk', 'POST', '/api/settings/bulk', { settings: [] }, 400, 'validation_failed'],
    [
      'turning encryption off without a new value',
      'PUT',
      '/api/settings/smtp.password',
      { encrypted: false },
      400,
      'validation_failed',
    ],
  ] as const)('answers %s with the error envelope', async (_name, method, url, payload, status, code) => {
    const response = await call(method, url, payload);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
  });

  it('rejects a bulk request whole and names each bad item', async () => {
    const response = await call('POST', '/api/settings/bulk', {
      settings: [
        { key: 'bulk.http.a', value: '1' },
        { key: 'bulk.http.b', value: '2', group_id: 'missing-group' },
      ],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([
      {
        index: 1,
        key: 'bulk.http.b',
        path: 'body.settings.1.group_id',
        message: expect.stringContaining('missing-group'),
      },
    ]);
    expect((await call('GET', '/api/settings/bulk.http.a')).statusCode).toBe(404);
  });

  it("checks a defined setting's value against its definition and names the field it refuses", async () => {
    const port = await call('GET', '/api/settings/smtp.port');
    expect(port.json().data.definition).toEqual({
      name: 'SMTP port',
      type: 'number',
      required: true,
      format: 'port',
      options: null,
    });
    const before = port.json().data.value;

    const notANumber = await call('PUT', '/api/settings/smtp.port', { value: 'five hundred' });
    expect(notANumber.statusCode).toBe(400);
    expect(notANumber.json().error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'body.value', key: 'smtp.port', message: 'must be a port number from 1 to 65535' }],
    });
    expect(notANumber.body).not.toContain('five hundred');
    const emptied = await call('PUT', '/api/settings/smtp.host', { value: '' });
    expect(emptied.json().error.details).toEqual([{ path: 'body.value', key: 'smtp.host', message: 'is required' }]);
    const notABoolean = await call('POST', '/api/settings/bulk', {
      settings: [
        { key: 'smtp.port', value: '2525' },
        { key: 'smtp.secure', value: 'sometimes' },
      ],
    });
    expect(notABoolean.statusCode).toBe(400);
    expect(notABoolean.json().error.details).toEqual([
      { index: 1, key: 'smtp.secure', path: 'body.settings.1.value', message: 'value must be true or false' },
    ]);
    // Nothing was written, and a value of the right type is.
    expect((await call('GET', '/api/settings/smtp.port')).json().data.value).toBe(before);
    expect((await call('PUT', '/api/settings/smtp.secure', { value: 'off' })).statusCode).toBe(200);
    // A setting without a definition takes any text.
    expect(
      (await call('POST', '/api/settings', { key: 'custom.free', value: 'anything' })).json().data.definition,
    ).toBe(null);
  });

  it.each([
    ['global.page_url', 'not a url', 'must be a URL starting with http:// or https://'],
    ['global.page_url', 'ftp://files.example.org', 'must be a URL starting with http:// or https://'],
    ['smtp.from_email', 'orbital at example', 'must be an e-mail address'],
    ['smtp.port', '70000', 'must be a port number from 1 to 65535'],
    ['smtp.host', 'smtp://mail.example.org:25', 'must be a host name or an IP address, without a scheme or port'],
    ['global.enable_login', 'perhaps', 'must be true or false'],
    ['global.enable_login', 1, 'must be true or false'],
    ['smtp.host', true, 'must be text'],
  ] as const)('refuses %s = %j at the field, keeping the stored value', async (key, value, message) => {
    const before = (await call('GET', `/api/settings/${key}`)).json().data.value;
    const refused = await call('PUT', `/api/settings/${key}`, { value });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      success: false,
      error: { code: 'validation_failed', details: [{ path: 'body.value', key, message }] },
    });
    expect((await call('GET', `/api/settings/${key}`)).json().data.value).toBe(before);
  });

  it('takes a JSON boolean for a boolean setting and a JSON number for a number setting', async () => {
    const off = await call('PUT', '/api/settings/smtp.secure', { value: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().data).toMatchObject({ value: 'false', definition: { type: 'boolean' } });
    const port = await call('PUT', '/api/settings/smtp.port', { value: 2525 });
    expect(port.json().data.value).toBe('2525');
    const bulk = await call('POST', '/api/settings/bulk', {
      settings: [
        { key: 'smtp.secure', value: true },
        { key: 'smtp.port', value: 465 },
      ],
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json().data.settings.map((x: { value: string }) => x.value)).toEqual(['true', '465']);
    expect(
      (await call('PUT', '/api/settings/global.page_url', { value: ' https://orbital.example.org ' })).json().data
        .value,
    ).toBe('https://orbital.example.org');
  });

  it('serves /documentation only while global.enable_swagger_docs is true', async () => {
    expect((await given.app.inject({ method: 'GET', url: '/documentation/json' })).statusCode).toBe(200);
    await call('PUT', '/api/settings/global.enable_swagger_docs', { value: 'false' });
    const hidden = await given.app.inject({ method: 'GET', url: '/documentation/json' });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
    await call('PUT', '/api/settings/global.enable_swagger_docs', { value: 'true' });
    expect((await given.app.inject({ method: 'GET', url: '/documentation/json' })).statusCode).toBe(200);
  });
});
