import type { CollaboratorView } from '@vault/contracts';
import type { MemberRow } from '../../persistence/memberships/collaborator.repository';

export function toCollaboratorView(m: MemberRow): CollaboratorView {
  return {
    id: m.id,
    openId: m.openId,
    username: m.username,
    firstName: m.firstName,
    lastName: m.lastName,
    role: m.role,
    createdAt: new Date(m.createdAt).toISOString(),
  };
}
