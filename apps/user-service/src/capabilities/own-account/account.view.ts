import type { AccountResponse } from '@vault/contracts';
import { AccountEntity } from '../../persistence/accounts/account.entity';

/** The response shape of an account (docs/user-api.md, Shapes): dateOfBirth as ISO 8601, midnight UTC. */
export function toAccountResponse(a: AccountEntity): AccountResponse {
  return {
    id: a.id,
    active: a.active,
    username: a.username,
    firstName: a.firstName,
    lastName: a.lastName,
    profilePhoto: a.profilePhoto,
    dateOfBirth: a.dateOfBirth ? `${a.dateOfBirth}T00:00:00.000Z` : null,
    maritalStatus: a.maritalStatus,
    gender: a.gender,
    primaryResidence: a.primaryResidence,
    emails: a.emails,
    phones: a.phones,
    referralCode: a.referralCode,
    cobrandId: a.cobrandId,
    defaultTeam: a.defaultTeam,
    openId: a.openId,
    customerId: a.customerId,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
