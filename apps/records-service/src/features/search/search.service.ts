import { Injectable } from '@nestjs/common';
import {
  type FileTextDto,
  type Principal,
  RECORD_ROLES,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_LANGUAGES,
  type SearchLanguage,
  type SearchPageDto,
  type SearchQueryDto,
  type SearchSettingsDto,
  type TextStatus,
  VAULT_ROLES,
} from '@vault/contracts';
import { routeRecordId, type VaultAccess } from '../../capabilities/access/access.service';
import { grants, type ParsedRule } from '../../capabilities/access/roles';
import { SearchRepository } from '../../persistence/search-index/search.repository';
import { TextJobRepository } from '../../persistence/search-index/text-jobs.repository';
import { decodeCursor, encodeCursor, MAX_SEARCH_OFFSET, parseQuery, snippetHtml } from './search-query';
import { fileNotFound } from './search.errors';
import { SearchEnv } from './search.env';
import { TextExtractionRunner } from './text-extraction.runner';

/** The roles that may read a record's files (the rule of the download route), as the search SQL applies them. */
const READS_FILES: ParsedRule = { domain: 'record', level: 'viewer' };
const VAULT_READERS = VAULT_ROLES.filter((r) => grants(READS_FILES, r, undefined));
const RECORD_READERS = RECORD_ROLES.filter((r) => grants(READS_FILES, undefined, r));

/** Content search over every vault the caller may read, a file's extracted text, a vault's settings. */
@Injectable()
export class SearchService {
  constructor(
    private readonly index: SearchRepository,
    private readonly jobs: TextJobRepository,
    private readonly runner: TextExtractionRunner,
    private readonly env: SearchEnv,
  ) {}

  async search(principal: Principal, dto: SearchQueryDto): Promise<SearchPageDto> {
    const offset = decodeCursor(dto);
    const limit = dto.limit ?? SEARCH_DEFAULT_LIMIT;
    const q = dto.q.trim();
    const rows = await this.index.search({
      tenantId: principal.tenantId,
      openId: principal.openId,
      vaultRoles: VAULT_READERS,
      recordRoles: RECORD_READERS,
      languages: SEARCH_LANGUAGES,
      query: q,
      ...parseQuery(q),
      vaultId: dto.vaultId,
      recordType: dto.recordType,
      fileType: dto.fileType,
      limit: limit + 1,
      offset,
    });
    const next = offset + limit;
    return {
      data: rows.slice(0, limit).map((r) => ({ ...r, snippet: snippetHtml(r.snippet) })),
      nextCursor: rows.length > limit && next <= MAX_SEARCH_OFFSET ? encodeCursor(dto, next) : null,
    };
  }

  /** The text extracted from the current bytes of the record's file `name`, page by page. */
  async fileText(access: VaultAccess, name: string): Promise<FileTextDto> {
    const found = await this.index.fileText(routeRecordId(access), name);
    if (!found) throw fileNotFound();
    const pages = found.id && found.status === 'extracted' ? await this.index.pages(found.id) : [];
    const off = this.env.SEARCH_TENANTS_WITHOUT_INDEXING.split(',').map((t) => t.trim());
    const indexed = found.indexing && this.env.SEARCH_CONTENT_INDEXING === 'on' && !off.includes(access.vault.tenantId);
    return {
      fileName: found.fileName,
      versionId: found.versionId,
      status: (found.status ?? (indexed ? 'pending' : 'skipped')) as TextStatus,
      reason: found.reason ?? (found.status || indexed ? null : 'indexing_off'),
      detectedType: found.detectedType,
      language: found.language as SearchLanguage,
      pages,
    };
  }

  async settings(access: VaultAccess): Promise<SearchSettingsDto> {
    return (await this.index.settings(access.vault.id)) as SearchSettingsDto;
  }

  /**
   * Saves a vault's settings: turned off, its extracted text is removed at once; turned on,
   * its files are queued; a new language re-weighs the stored pages (no re-extraction).
   */
  async saveSettings(access: VaultAccess, dto: SearchSettingsDto): Promise<SearchSettingsDto> {
    const vaultId = access.vault.id;
    const before = await this.index.settings(vaultId);
    await this.index.saveSettings(vaultId, dto.contentIndexing, dto.language);
    if (!dto.contentIndexing) await this.jobs.dropVault(vaultId);
    else if (!before.contentIndexing) {
      await this.jobs.enqueueVault(vaultId);
      this.runner.wake();
    } else if (before.language !== dto.language) await this.jobs.retokenize('vault', [vaultId]);
    return { contentIndexing: dto.contentIndexing, language: dto.language };
  }
}
