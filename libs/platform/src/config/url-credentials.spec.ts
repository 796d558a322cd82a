import { connectionFailure, redactUrl, redactUrlIn } from './url-credentials';

describe('redactUrl', () => {
  it.each([
    ['postgres://vault:s3cret@db:5432/vault?sslmode=require', 'postgres://vault:***@db:5432/vault?sslmode=require'],
    ['smtps://mailer:s3cret@smtp.example.com:465', 'smtps://mailer:***@smtp.example.com:465'],
    ['nats://s3cret@nats:4222', 'nats://***@nats:4222'],
    ['postgres://db:5432/vault', 'postgres://db:5432/vault'],
    ['http://127.0.0.1:3001/api/v1/.well-known/jwks.json', 'http://127.0.0.1:3001/api/v1/.well-known/jwks.json'],
  ])('shows %s as %s', (value, shown) => {
    expect(redactUrl(value)).toBe(shown);
  });

  it('hides the whole password of a malformed URL (holding @, /, a comma or spaces) and of one without a scheme', () => {
    expect(redactUrl('postgres://vault:p@ss/w,rd here@db/vault')).toBe('postgres://vault:***@db/vault');
    expect(redactUrl('vault:s3cret@db:5432/vault')).toBe('vault:***@db:5432/vault');
  });

  it('shows each URL of a list on its own', () => {
    expect(redactUrl('nats://a:s3cret@n1:4222, nats://t0ken@n2:4222,nats://n3:4222')).toBe(
      'nats://a:***@n1:4222, nats://***@n2:4222,nats://n3:4222',
    );
  });
});

describe('redactUrlIn', () => {
  it('hides the URL, or one URL of its list, wherever a message quotes it', () => {
    const url = 'nats://a:s3cret@n1:4222,nats://b:0ther@n2:4222';
    expect(redactUrlIn('cannot reach nats://b:0ther@n2:4222 (refused)', url)).toBe('cannot reach nats://b:***@n2:4222 (refused)');
    expect(redactUrlIn(`bad servers ${url}`, url)).toBe('bad servers nats://a:***@n1:4222,nats://b:***@n2:4222');
  });
});

describe('connectionFailure', () => {
  it('names the setting and the URL without its password, and gives the reason', () => {
    const url = 'postgres://vault:s3cret@db:5432/vault';
    const err = connectionFailure('the database', 'DATABASE_URL', url, new Error(`refused by ${url}`));
    expect(err.message).toBe(
      'cannot connect to the database (DATABASE_URL=postgres://vault:***@db:5432/vault): refused by postgres://vault:***@db:5432/vault',
    );
    expect(err.cause).toBeUndefined();
    expect(String(err.stack)).not.toContain('s3cret');
  });
});
