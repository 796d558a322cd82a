import baseConfig from '../../eslint.config.mjs';
import { serviceLayers } from '../../eslint.layers.mjs';

/**
 * user-service in layers, imports pointing one way only (docs/architecture.md):
 * app -> features -> capabilities -> persistence; features never import each other:
 * what several of them use (the caller's own account, account events, messaging) is a
 * capability.
 */
export default [...baseConfig, ...serviceLayers(import.meta.dirname)];
