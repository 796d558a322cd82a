export { createVaultClient, VaultClient, type Module, type PasswordAuth, type VaultClientOptions } from './client.js';
export type { CallOptions, CreateOptions, DeveloperPaths, RecordsPaths, Schemas, UserPaths, WriteOptions } from './api-types.js';
export type { components, operations, paths } from './generated/vault-api.js';
export {
  OAuthTokenProvider,
  type ClientCredentials,
  type OAuthTokenProviderOptions,
  type TokenSet,
} from './auth/oauth-token-provider.js';
export { staticToken, type TokenProvider } from './auth/token-provider.js';
export {
  DigestMismatchError,
  errorFromResponse,
  FeedExpiredError,
  PreconditionFailedError,
  RateLimitedError,
  VaultApiError,
  VaultNetworkError,
  type Problem,
} from './errors.js';
export { etagOf, ifMatch, ifNoneMatch, updateWithETag, type Tagged } from './etag.js';
export { listItems, toArray, type ListPage } from './pagination.js';
export { createNodeFetch, localhostLookup, type FetchLike, type TlsOptions } from './policy/net.js';
export { DEFAULT_RETRY, fullJitterDelay, parseRateLimit, parseRetryAfter, type RetryOptions } from './policy/retry-policy.js';
export { Transport, type RetryEvent, type SendInit, type TransportOptions } from './policy/transport.js';
export type { FeedPage, FeedPageOptions, LogOptions } from './resources/activity.js';
export type { ListVaultsOptions } from './resources/vaults.js';
export type { SearchOptions } from './resources/lifecycle.js';
export type { SearchRecordsOptions } from './resources/records.js';
export { sha256Hex } from './transfer/digest.js';
export type { AgeExportResult, DownloadOptions, DownloadResult } from './transfer/downloads.js';
export type { CloudEvent, FeedMessage, FollowOptions } from './transfer/feed.js';
export type { UploadOptions, UploadResult } from './transfer/uploads.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export { dataOf, unwrap } from './unwrap.js';
