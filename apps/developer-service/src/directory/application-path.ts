/** Route of one tenant's client application (contract §4.1), below the api/v1 prefix. */
export const APPLICATION_PATH =
  'tenant/tenant-id/:tenantId/applications/client-id/:clientId';
