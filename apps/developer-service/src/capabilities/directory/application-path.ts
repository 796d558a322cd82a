/** Route of one tenant's client application, below the api/v1 prefix (docs/developer-api.md, Endpoints). */
export const APPLICATION_PATH = 'tenant/tenant-id/:tenantId/applications/client-id/:clientId';
