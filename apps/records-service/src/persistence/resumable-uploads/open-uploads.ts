import type { EntityManager } from 'typeorm';

/** Resumable (tus) uploads open now: created, neither completed, terminated nor expired. */
export async function countOpenUploads(m: EntityManager): Promise<number> {
  const [row]: { open: number }[] = await m.query(`SELECT count(*)::int AS open FROM resumable_uploads WHERE expires_at > now()`);
  return row.open;
}
