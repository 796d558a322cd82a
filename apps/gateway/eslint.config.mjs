import baseConfig from '../../eslint.config.mjs';
import { serviceLayers } from '../../eslint.layers.mjs';

/**
 * The gateway in the layers of every service (docs/architecture.md): features/ are its
 * listeners (edge: the HTTPS listener, health to Nest and the rest to the proxy;
 * plain-http: the refusing HTTP listener), capabilities/ what they and app/ use (answers,
 * proxy, rate-limit, routing, tls); config/ imports no other layer.
 */
export default [...baseConfig, ...serviceLayers(import.meta.dirname)];
