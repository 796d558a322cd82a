import { WebhookEntity } from '../../persistence/webhooks/webhook.entity';
import { toWebhookView } from './webhooks.service';

const row = (over: Partial<WebhookEntity>): WebhookEntity =>
  Object.assign(new WebhookEntity(), {
    id: 'w1',
    tenantId: 't1',
    vaultId: 'v1',
    url: 'https://hooks.example.com/in',
    events: ['record.created'],
    description: null,
    secret: 'v1:k1:sealed',
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: false,
    disabledCode: 'creator_account_deleted',
    disabledReason: 'the account that created it was deleted',
    disabledAt: new Date('2026-11-26T06:00:00Z'),
    failingSince: null,
    createdBy: 'u1',
    createdAt: new Date('2026-11-01T00:00:00Z'),
    updatedAt: new Date('2026-11-26T06:00:00Z'),
    ...over,
  });

describe('toWebhookView', () => {
  it('shows the code of a disabled subscription', () => {
    expect(toWebhookView(row({}))).toMatchObject({ enabled: false, disabledCode: 'creator_account_deleted' });
  });

  it('shows no code for an enabled subscription, even one whose row kept it (resumed by an instance that predates codes)', () => {
    expect(toWebhookView(row({ enabled: true })).disabledCode).toBeNull();
  });

  it('never shows the secret', () => {
    expect(JSON.stringify(toWebhookView(row({})))).not.toContain('sealed');
  });
});
