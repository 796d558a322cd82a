import { INestApplication, RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ACCESS_RULE, AccessRule } from './access.decorators';

export interface RouteRule {
  route: string;
  rule: AccessRule | undefined;
}

/**
 * Lists every route of an app with its declared access rule, so a test can fail
 * on any route that has none (deny by default is enforced at runtime too).
 */
export function listRouteRules(app: INestApplication): RouteRule[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const out: RouteRule[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const proto = Object.getPrototypeOf(instance);
    const base = Reflect.getMetadata(PATH_METADATA, wrapper.metatype as object) ?? '';
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name];
      const path = Reflect.getMetadata(PATH_METADATA, handler);
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const rule = reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler, wrapper.metatype as object]);
      out.push({ route: `${method} /${base}/${path}`.replace(/\/+/g, '/'), rule });
    }
  }
  return out;
}
