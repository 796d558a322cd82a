import { listRouteRules } from '@vault/platform/auth';
import { badTokens } from '@vault/platform/testing';
import { RecordsTestApp } from './support';

/** The documented role of every route (docs/records-api.md). */
const EXPECTED = {
  'POST /vault': 'authenticated',
  'GET /vault': 'authenticated',
  'GET /vault/check-email': 'authenticated',
  'GET /vault/vault-id/:vaultId': 'vault:guest',
  'PUT /vault/vault-id/:vaultId': 'vault:editor',
  'DELETE /vault/vault-id/:vaultId': 'vault:owner',
  'GET /vault/vault-id/:vaultId/home': 'vault:guest',
  'GET /vault/vault-id/:vaultId/licenses': 'vault:viewer',
  'GET /vault/vault-id/:vaultId/branding': 'vault:guest',
  'POST /vault/vault-id/:vaultId/records': 'vault:editor',
  'GET /vault/vault-id/:vaultId/records': 'vault:guest',
  'GET /vault/vault-id/:vaultId/records/record-id/:recordId': 'record:viewer',
  'PUT /vault/vault-id/:vaultId/records/record-id/:recordId': 'record:editor',
  'DELETE /vault/vault-id/:vaultId/records/record-id/:recordId': 'record:owner',
  'PUT /vault/vault-id/:vaultId/records/record-id/:recordId/transfer': 'vault:editor',
  'GET /vault/vault-id/:vaultId/collaborators': 'vault:info',
  'POST /vault/vault-id/:vaultId/collaborators': 'vault:owner',
  'PUT /vault/vault-id/:vaultId/collaborators/collaborator-id/:collaboratorId': 'vault:owner',
  'DELETE /vault/vault-id/:vaultId/collaborators/collaborator-id/:collaboratorId': 'vault:info',
  'PUT /vault/vault-id/:vaultId/owner': 'vault:owner',
  'POST /vault/vault-id/:vaultId/claim-ownership': 'vault:editor',
  'GET /vault/vault-id/:vaultId/records/record-id/:recordId/collaborators': 'record:info',
  'POST /vault/vault-id/:vaultId/records/record-id/:recordId/collaborators': 'record:info',
  'PUT /vault/vault-id/:vaultId/records/record-id/:recordId/collaborators/collaborator-id/:collaboratorId': 'record:info',
  'DELETE /vault/vault-id/:vaultId/records/record-id/:recordId/collaborators/collaborator-id/:collaboratorId': 'record:info',
  'POST /vault/vault-id/:vaultId/webhooks': 'vault:owner',
  'GET /vault/vault-id/:vaultId/webhooks': 'vault:owner',
  'GET /vault/vault-id/:vaultId/webhooks/webhook-id/:webhookId': 'vault:owner',
  'PUT /vault/vault-id/:vaultId/webhooks/webhook-id/:webhookId': 'vault:owner',
  'DELETE /vault/vault-id/:vaultId/webhooks/webhook-id/:webhookId': 'vault:owner',
  'POST /vault/vault-id/:vaultId/webhooks/webhook-id/:webhookId/rotate-secret': 'vault:owner',
  'GET /vault/vault-id/:vaultId/webhooks/webhook-id/:webhookId/deliveries': 'vault:owner',
  'GET /vault/vault-id/:vaultId/encryption/identity': 'vault:owner',
  'GET /vault/vault-id/:vaultId/records/record-id/:recordId/record-files/:name/age': 'vault:owner',
  'POST /vault/vault-id/:vaultId/webhooks/webhook-id/:webhookId/deliveries/delivery-id/:deliveryId/redeliver': 'vault:owner',
  'GET /vault/vault-id/:vaultId/events': 'vault:guest',
  'GET /vault/vault-id/:vaultId/trash': 'vault:editor',
  'GET /trash': 'authenticated',
  'GET /trash/item-id/:itemId/retention': 'authenticated',
  'POST /trash/item-id/:itemId/restore': 'authenticated',
  'DELETE /trash/item-id/:itemId': 'authenticated',
  'POST /legal-holds': 'authenticated',
  'GET /legal-holds': 'authenticated',
  'GET /legal-holds/hold-id/:holdId': 'authenticated',
  'DELETE /legal-holds/hold-id/:holdId': 'authenticated',
  'GET /vault/vault-id/:vaultId/retention': 'vault:viewer',
  'GET /vault/vault-id/:vaultId/records/record-id/:recordId/retention': 'record:viewer',
  'GET /vault/vault-id/:vaultId/records/record-id/:recordId/record-files/:name/retention': 'record:viewer',
};

describe('records-service routes', () => {
  let t: RecordsTestApp;
  beforeAll(async () => {
    t = await RecordsTestApp.start('records_routes');
  });
  afterAll(() => t?.stop());

  it('declares an access rule on every route, exactly as documented', () => {
    const rules = listRouteRules(t.app)
      .filter((r) => !r.route.includes('/health/'))
      .map((r) => ({ ...r, route: r.route.replace(/\/$/, '') }));
    const missing = rules.filter((r) => r.rule === undefined).map((r) => r.route);
    expect(missing).toEqual([]);
    // every route of this module carries exactly the documented rule (other modules' routes
    // of the app only need a rule, checked above)
    const declared = Object.fromEntries(rules.map((r) => [r.route, r.rule]));
    expect(Object.fromEntries(Object.keys(EXPECTED).map((k) => [k, declared[k]]))).toEqual(EXPECTED);
    expect(rules.length).toBeGreaterThanOrEqual(Object.keys(EXPECTED).length);
  });

  it('refuses every protected route without a valid token', async () => {
    const tokens = await badTokens(t.idp);
    const id = '00000000-0000-4000-8000-000000000000';
    for (const route of Object.keys(EXPECTED)) {
      const [method, path] = route.split(' ');
      const url = `/api/v1${path.replace(':vaultId', id).replace(':recordId', id).replace(':collaboratorId', id).replace(':webhookId', id).replace(':deliveryId', id).replace(':itemId', id).replace(':holdId', id).replace(':name', 'x.pdf')}`;
      const agent = t.http()[method.toLowerCase() as 'get'](url);
      await agent.expect(401);
      for (const [name, token] of Object.entries(tokens)) {
        const res = await t.http()[method.toLowerCase() as 'get'](url).set('Authorization', `Bearer ${token}`);
        expect([route, name, res.status]).toEqual([route, name, 401]);
      }
    }
  });

  it('serves its OpenAPI description with every route', async () => {
    const res = await t.http().get('/api/v1/openapi.json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/vault',
        '/vault/check-email',
        '/vault/vault-id/{vaultId}/records/record-id/{recordId}/transfer',
        '/vault/vault-id/{vaultId}/collaborators',
        '/vault/vault-id/{vaultId}/owner',
        '/vault/vault-id/{vaultId}/webhooks/webhook-id/{webhookId}/deliveries',
        '/vault/vault-id/{vaultId}/records/record-id/{recordId}/collaborators/collaborator-id/{collaboratorId}',
      ]),
    );
    const schemas = res.body.components.schemas;
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'VaultView',
        'VaultHomeView',
        'BrandingView',
        'LicenseView',
        'RecordLookupView',
        'RecordSearchItem',
        'CollaboratorView',
        'AddVaultCollaboratorDto',
        'TransferVaultOwnershipDto',
        'WebhookDto',
        'WebhookWithSecretView',
        'WebhookDeliveryPage',
      ]),
    );
    expect(Object.keys(schemas.BrandingView.properties)).toHaveLength(17);
    expect(res.body.components.schemas.RecordDto.required).toEqual(
      expect.arrayContaining(['name', 'description', 'recordTypeName', 'recordSubtypeName']),
    );
  });

  it('is healthy with its database and NATS', async () => {
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.info).toMatchObject({ database: { status: 'up' }, nats: { status: 'up' } });
    // Express hardening of configureApp: no framework banner, no ETag on API answers.
    expect(ready.headers['x-powered-by']).toBeUndefined();
    expect(ready.headers['etag']).toBeUndefined();
  });
});
