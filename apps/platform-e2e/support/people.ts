import { call, cy, tokenFor } from './client';

/** A token of a user of the alpha organisation from the bootstrap file (`<user>@alpha.example`). */
export const alphaUser = (user: string) =>
  tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', `${user}@alpha.example`, `${user}-password-1`);

/** Polls `check` until it answers true or `ms` pass. */
export async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The owner shares the vault with an alpha user in `role`, retried until the user's account
 * event has reached records-service's directory (a fresh account answers 404 until then).
 */
export async function shareVault(owner: string, vaultId: string, username: string, role: string): Promise<void> {
  let status = 0;
  await eventually(async () => {
    const res = await call('records', 'POST', `/vault/vault-id/${vaultId}/collaborators`, {
      token: owner,
      body: { username: `${username}@alpha.example`, role },
    });
    status = res.status;
    return status === 201;
  });
  expect(status).toBe(201);
}

/** Creates the user-service account of each token (first name, the suite's last name). */
export async function createAccounts(people: [token: string, firstName: string][], lastName: string): Promise<void> {
  for (const [token, firstName] of people) {
    expect((await call('user', 'POST', '/accounts', { token, body: { firstName, lastName } })).status).toBe(200);
  }
}

/** A premium vault shared by its owner with an editor and a viewer, and the callers the role tests need. */
export interface SharedVault {
  owner: string;
  editor: string;
  viewer: string;
  /** bob: a user of the same tenant without a role in the vault. */
  stranger: string;
  /** cy: a user of another tenant. */
  otherTenant: string;
  /** lex: the alpha tenant's compliance officer. */
  officer: string;
  vaultId: string;
}

/**
 * Signs in the owner, editor and viewer (alpha users `[user, firstName]`, accounts created with
 * `lastName`) and the other callers, creates the premium vault `vaultName` and shares it.
 */
export async function sharedVault(
  people: [owner: [string, string], editor: [string, string], viewer: [string, string]],
  lastName: string,
  vaultName: string,
): Promise<SharedVault> {
  const [owner, editor, viewer, stranger, otherTenant, officer] = await Promise.all([
    ...people.map(([user]) => alphaUser(user)),
    alphaUser('bob'),
    cy(),
    alphaUser('lex'),
  ]);
  await createAccounts(
    [
      [owner, people[0][1]],
      [editor, people[1][1]],
      [viewer, people[2][1]],
    ],
    lastName,
  );
  const vault = await call('records', 'POST', '/vault', {
    token: owner,
    body: { name: vaultName, licenseKey: 'PREMIUM-DEMO-2026' },
  });
  expect(vault.status).toBe(201);
  const vaultId: string = vault.body.id;
  await shareVault(owner, vaultId, people[1][0], 'vault_editor');
  await shareVault(owner, vaultId, people[2][0], 'vault_viewer');
  return { owner, editor, viewer, stranger, otherTenant, officer, vaultId };
}
