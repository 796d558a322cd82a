import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const OLD = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
const NEW = 'whsec_' + Buffer.alloc(32, 2).toString('base64');

function signed(secret: string, body: string) {
  const id = 'evt-1';
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(id, timestamp, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

describe('verifyWebhook', () => {
  const body = JSON.stringify({ specversion: '1.0', id: 'evt-1', type: 'record.created', data: { id: 'r1' } });

  it('answers the CloudEvent of a delivery signed with the secret', () => {
    expect(verifyWebhook(NEW, body, signed(NEW, body))).toMatchObject({ type: 'record.created', data: { id: 'r1' } });
  });

  it('accepts either secret during a rotation, and Headers as well as a plain object', () => {
    expect(verifyWebhook([NEW, OLD], Buffer.from(body), new Headers(signed(OLD, body))).id).toBe('evt-1');
  });

  it('refuses a changed body or another secret', () => {
    expect(() => verifyWebhook(NEW, body.replace('r1', 'r2'), signed(NEW, body))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(OLD, body, signed(NEW, body))).toThrow(WebhookVerificationError);
  });
});
