import type { Principal } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import type { MailSender, SmsSender } from '../../capabilities/messaging/message-senders';
import type { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import type { UserEnv } from '../../config/user.env';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import type { AccountRepository } from '../../persistence/accounts/account.repository';
import type { MfaCodeRepository, MfaCodeTry } from '../../persistence/mfa-codes/mfa-code.repository';
import type { Transactions, Tx } from '@vault/platform/persistence';
import { hashMfaCode, MFA_MAX_ATTEMPTS } from './mfa-code';
import { MfaService } from './mfa.service';

const p = { tenantId: 't', openId: 'o' } as Principal;
const email = { _id: 'e1', address: 'ann@example.com', primary: true, verified: false };

/** The service on repositories replaced by fakes: its rules run without a database. */
function setUp(tried: MfaCodeTry | null, newest: { createdAt: Date } | null = null) {
  const account = Object.assign(new AccountEntity(), { id: 'a1', emails: [email], phones: [] });
  const codes = {
    tryNewest: jest.fn(async () => tried),
    consume: jest.fn(async () => true),
    newest: jest.fn(async () => newest),
    consumeOpen: jest.fn(async () => undefined),
    insert: jest.fn(async () => undefined),
  };
  const own = {
    ownById: jest.fn(async () => account),
    mutate: jest.fn(async (_p: Principal, _id: string, change: (a: AccountEntity) => void) => {
      change(account);
      return account;
    }),
  };
  const mail = { send: jest.fn(async () => undefined) };
  const service = new MfaService(
    { run: (work: (tx: Tx) => Promise<unknown>) => work({} as Tx) } as unknown as Transactions,
    { lock: jest.fn(async () => undefined) } as unknown as AccountRepository,
    codes as unknown as MfaCodeRepository,
    own as unknown as OwnAccountService,
    mail as unknown as MailSender,
    {} as SmsSender,
    { MFA_RESEND_INTERVAL_SECONDS: 30 } as UserEnv,
  );
  return { service, account, codes, own, mail };
}

const aTry = (code: string, attempts: number): MfaCodeTry => ({
  id: 'c1',
  codeHash: hashMfaCode(code),
  attempts,
  channel: 'email',
  destinationId: 'e1',
});

async function problemOf(work: Promise<unknown>): Promise<ProblemException> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProblemException);
  return err as ProblemException;
}

describe('MfaService', () => {
  it('answers invalid_mfa_code without a code to try', async () => {
    const { service } = setUp(null);
    const problem = await problemOf(service.verify(p, 'a1', '123456'));
    expect([problem.getStatus(), problem.code]).toEqual([400, 'invalid_mfa_code']);
  });

  it('uses up a code whose last try was wrong, and verifies nothing', async () => {
    const { service, codes, own } = setUp(aTry('123456', MFA_MAX_ATTEMPTS));
    expect((await problemOf(service.verify(p, 'a1', '654321'))).code).toBe('invalid_mfa_code');
    expect(codes.consume).toHaveBeenCalledWith('c1');
    expect(own.mutate).not.toHaveBeenCalled();
  });

  it('consumes the right code and verifies the address it was sent to', async () => {
    const { service, codes, account } = setUp(aTry('123456', 1));
    await service.verify(p, 'a1', '123456');
    expect(codes.consume).toHaveBeenCalledWith('c1');
    expect(account.emails[0].verified).toBe(true);
  });

  it('refuses a new code within the resend interval (429 with Retry-After), storing and sending none', async () => {
    const { service, codes, mail } = setUp(null, { createdAt: new Date(Date.now() - 10_000) });
    const problem = await problemOf(service.send(p, 'a1', { type: 'email', notificationType: 'mfaEmail' }));
    expect(problem.getStatus()).toBe(429);
    expect(Number(problem.headers?.['Retry-After'])).toBeGreaterThanOrEqual(19);
    expect(codes.insert).not.toHaveBeenCalled();
    expect(mail.send).not.toHaveBeenCalled();
  });
});
