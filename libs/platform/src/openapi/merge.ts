import type { OpenAPIObject } from '@nestjs/swagger';
import type { WebhooksObject } from './normalize';

type ComponentsObject = NonNullable<OpenAPIObject['components']>;
type Documented = OpenAPIObject & { webhooks?: WebhooksObject };

export interface MergeInfo {
  title: string;
  description: string;
}

/**
 * One document of the whole API from the modules' documents: each path keeps its module's
 * server (a path-level `servers`, OpenAPI 3.1), components are shared by name (a name two
 * modules define differently is an error: rename one), tags and webhooks are united.
 */
export function mergeDocuments(modules: readonly OpenAPIObject[], info: MergeInfo): OpenAPIObject {
  const merged: Documented = {
    openapi: '3.1.0',
    info: { ...modules[0].info, title: info.title, description: info.description },
    servers: modules.flatMap((m) => m.servers ?? []),
    paths: {},
    components: {},
    tags: [],
  };
  for (const doc of modules as Documented[]) {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (merged.paths[path]) throw new Error(`${path} is in two modules' documents`);
      merged.paths[path] = { servers: doc.servers, ...item };
    }
    mergeComponents(merged.components as ComponentsObject, doc.components ?? {}, doc.info.title);
    for (const tag of doc.tags ?? []) if (!merged.tags?.some((t) => t.name === tag.name)) merged.tags?.push(tag);
    if (doc.webhooks) merged.webhooks = { ...merged.webhooks, ...doc.webhooks };
  }
  merged.tags?.sort((a, b) => a.name.localeCompare(b.name));
  return merged;
}

function mergeComponents(into: ComponentsObject, from: ComponentsObject, module: string): void {
  for (const [section, entries] of Object.entries(from) as [keyof ComponentsObject, Record<string, unknown>][]) {
    const target = (into[section] ??= {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(entries)) {
      if (name in target && JSON.stringify(target[name]) !== JSON.stringify(value)) {
        throw new Error(`components.${section}.${name} of ${module} differs from another module's: rename one`);
      }
      target[name] = value;
    }
  }
}
