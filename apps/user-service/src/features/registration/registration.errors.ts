import { COMMON_ERRORS, USER_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** A field the identity cannot fill in, or that repeats itself. */
const invalidField = (field: string, message: string) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The request has 1 invalid field.', { errors: [{ field, message }] });

export const usernameRequired = () => invalidField('username', 'username is required (the identity has no user name)');

export const emailAddressRequired = (index: number) =>
  invalidField(`emails.${index}.address`, 'address is required (the identity has no email)');

export const emailsRepeat = () => invalidField('emails', 'emails must not repeat an address');

/** Unknown, expired and used codes all answer the same. */
export const invalidInvitationCode = () =>
  ProblemException.of(USER_ERRORS.invalidInvitationCode, 'The invitation code is unknown, expired or used.', {
    errors: [{ field: 'invitationCode', message: 'invitationCode is unknown, expired or already used' }],
  });
