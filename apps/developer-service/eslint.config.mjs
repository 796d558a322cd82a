import baseConfig from '../../eslint.config.mjs';
import { serviceLayers } from '../../eslint.layers.mjs';

/**
 * developer-service in layers, imports pointing one way only (docs/architecture.md):
 * app -> features -> capabilities -> persistence; features never import each other.
 */
export default [...baseConfig, ...serviceLayers(import.meta.dirname)];
