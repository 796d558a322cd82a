import { BodyLimits, declaresTooMuch, describeLimit, UPLOAD_ROUTES } from './body-limit';

describe('body limits', () => {
  const limits = new BodyLimits({ json: 10, upload: 1000 });
  const files = '/api/v1/vault/vault-id/v-1/records/record-id/r-1/record-files';

  it('gives the upload limit to the upload routes, query and case ignored, trailing slash allowed', () => {
    for (const url of [files, `${files}?fileName=a.pdf&fileType=document`, `${files}/`, files.toUpperCase()]) {
      expect(limits.limitFor('records-api', 'POST', url)).toEqual({ kind: 'upload', bytes: 1000 });
    }
  });

  it('gives the JSON limit to every other route, whatever the method, module or path', () => {
    const others: Array<[Parameters<BodyLimits['limitFor']>[0], string, string]> = [
      ['records-api', 'PUT', `${files}/a.pdf`],
      ['records-api', 'PUT', files],
      ['records-api', 'POST', `${files}/a.pdf`],
      ['records-api', 'POST', '/api/v1/vault'],
      ['records-api', 'POST', '/api/v1/vault/vault-id//records/record-id/r-1/record-files'],
      ['records-api', 'POST', `/prefix${files}`],
      ['user-api', 'POST', files],
      ['developer-api', 'POST', files],
    ];
    for (const [module, method, url] of others) {
      expect(limits.limitFor(module, method, url)).toEqual({ kind: 'json', bytes: 10 });
    }
  });

  it('reads the upload routes from a declarative list', () => {
    expect(UPLOAD_ROUTES.map((r) => `${r.module} ${r.method} ${r.path}`)).toEqual([
      'records-api POST /api/v1/vault/vault-id/:vaultId/records/record-id/:recordId/record-files',
      'records-api POST /api/v1/vault/vault-id/:vaultId/records/record-id/:recordId/uploads',
      'records-api PATCH /api/v1/vault/vault-id/:vaultId/records/record-id/:recordId/uploads/:uploadId',
    ]);
    const chunk = '/api/v1/vault/vault-id/v/records/record-id/r/uploads/u';
    expect(new BodyLimits({ json: 1, upload: 2 }).limitFor('records-api', 'PATCH', chunk)).toEqual({ kind: 'upload', bytes: 2 });
    const custom = new BodyLimits({ json: 1, upload: 2 }, [
      { module: 'user-api', method: 'put', path: '/api/v1/accounts/:id/photo' },
    ]);
    expect(custom.limitFor('user-api', 'PUT', '/api/v1/accounts/x.y/photo')).toEqual({ kind: 'upload', bytes: 2 });
    expect(custom.limitFor('user-api', 'PUT', '/api/v1/accounts/x/y/photo')).toEqual({ kind: 'json', bytes: 1 });
  });

  it('compares the declared length with the limit', () => {
    expect(declaresTooMuch({ 'content-length': '11' }, 10)).toBe(true);
    expect(declaresTooMuch({ 'content-length': '10' }, 10)).toBe(false);
    expect(declaresTooMuch({}, 10)).toBe(false);
  });

  it('describes the limit', () => {
    expect(describeLimit({ kind: 'json', bytes: 1024 })).toBe(
      'The request body exceeds the gateway limit of 1024 bytes for this route (it takes no upload).',
    );
    expect(describeLimit({ kind: 'upload', bytes: 5 })).toBe(
      'The request body exceeds the gateway limit of 5 bytes for uploads.',
    );
  });
});
