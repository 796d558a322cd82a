import type { AgreementResponse } from '@vault/contracts';
import type { AgreementEntity } from '../../persistence/agreements/agreement.entity';

export function toAgreementResponse(a: AgreementEntity): AgreementResponse {
  return {
    id: a.id,
    _id: a.id,
    account: a.accountId,
    locale: a.locale,
    type: a.type,
    version: a.version,
    consent: a.consent,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
