import { createHash } from 'node:crypto';
import type { SearchQueryDto } from '@vault/contracts';
import { MARK_END, MARK_START } from '../../persistence/search-index/search.repository';
import { invalidSearchCursor } from './search.errors';

/** Results a search pages through at most (deeper pages: refine the query). */
export const MAX_SEARCH_OFFSET = 1000;

/** The parts of a websearch query the SQL needs besides the query itself. */
export interface ParsedQuery {
  /** Excluded words (`-word`) as a websearch query of alternatives; '' when none. */
  excluded: string;
  /** Words a page must all contain, also inside longer words (none when the query has a phrase or `or`). */
  parts: string[];
}

const escapeLike = (w: string) => w.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Splits `q` (websearch syntax) into its excluded words and, without phrases, the word parts to look for. */
export function parseQuery(q: string): ParsedQuery {
  const tokens = q.split(/\s+/).filter(Boolean);
  const excluded = tokens.filter((t) => t.startsWith('-') && t.length > 1).map((t) => t.slice(1).replace(/"/g, ''));
  const phrase = q.includes('"') || tokens.some((t) => t.toLowerCase() === 'or');
  const words = tokens
    .filter((t) => !t.startsWith('-'))
    .map((t) => t.replace(/[^\p{L}\p{N}]/gu, ''))
    .filter((t) => t.length >= 3);
  return { excluded: excluded.join(' or '), parts: phrase ? [] : words.map(escapeLike) };
}

/** Fingerprint of a query and its filters: a cursor is valid for them only. */
function fingerprint(dto: SearchQueryDto): string {
  const key = JSON.stringify([dto.q, dto.vaultId ?? '', dto.recordType ?? '', dto.fileType ?? '']);
  return createHash('sha256').update(key).digest('base64url').slice(0, 12);
}

export function encodeCursor(dto: SearchQueryDto, offset: number): string {
  return Buffer.from(`${offset}.${fingerprint(dto)}`).toString('base64url');
}

/** The offset a cursor continues at; a 400 problem for a cursor of another search or a malformed one. */
export function decodeCursor(dto: SearchQueryDto): number {
  if (dto.cursor === undefined) return 0;
  const m = /^(\d{1,5})\.([\w-]{12})$/.exec(Buffer.from(dto.cursor, 'base64url').toString());
  if (!m || m[2] !== fingerprint(dto) || Number(m[1]) > MAX_SEARCH_OFFSET) throw invalidSearchCursor();
  return Number(m[1]);
}

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A headline as HTML: the text escaped, the matches in <mark>. */
export function snippetHtml(headline: string): string {
  return headline
    .replace(/[&<>"']/g, (c) => HTML[c])
    .split(MARK_START)
    .join('<mark>')
    .split(MARK_END)
    .join('</mark>');
}
