import baseConfig from '../../eslint.config.mjs';
import { serviceLayers } from '../../eslint.layers.mjs';

/**
 * records-service in layers, imports pointing one way only (docs/architecture.md,
 * records-service inside): app -> features -> capabilities -> persistence. Among features
 * only records may use files (a record's view lists its files), and webhooks may use the
 * views (`<name>.view.ts`) of the others (a webhook carries a resource as the API shows it).
 */
export default [
  ...baseConfig,
  ...serviceLayers(import.meta.dirname, {
    allow: {
      records: ['features/files/*.view.ts'],
      webhooks: ['features/*/**/*.view.ts'],
    },
  }),
];
