import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  Type,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiResponse, type SchemaObject } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { etagHeaderOf, ETagged } from '../http/conditional-requests';
import { headersOf } from './decorators';
import type { ResponseHeaderName } from './headers';

/** The version prefix every Location starts with (see docs/openapi.md, "URLs in answers"). */
const LOCATION_PREFIX = '/api/v1';

/**
 * Where the created resource is read, from the handler's result and the request's path
 * parameters, as a path after /api/v1 (`/vault/vault-id/${result.id}`). `'self'`: the
 * request's own path (a PUT answering 201, a collection whose new entry has no URL of its own).
 */
export type LocationOf = 'self' | ((result: never, params: Record<string, string>) => string);

const LOCATION_OF = 'vault:location-of';

/** Sets `Location` on a 201 from the route's LocationOf (every 201 of the platform carries one). */
@Injectable()
export class LocationInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const locate = this.reflector.get<LocationOf | undefined>(LOCATION_OF, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (locate && res.statusCode === 201 && !res.headersSent) {
          const body = result instanceof ETagged ? result.body : result;
          const path =
            locate === 'self'
              ? req.originalUrl.split('?')[0]
              : `${LOCATION_PREFIX}${(locate as (r: unknown, p: Record<string, string>) => string)(body, req.params as Record<string, string>)}`;
          res.setHeader('Location', path);
        }
        return result;
      }),
    );
  }
}

/**
 * A route answering 201: documents the answer (its type and the `Location` header) and sends
 * `Location`, an absolute path on the same host starting with /api/v1. Put it ABOVE
 * `@Idempotent()` and `@Conditional()`, so that their stored or tagged answer has the header.
 */
export function ApiCreated(opts: {
  location: LocationOf;
  type?: Type<unknown> | [Type<unknown>];
  /** The body's schema, for an answer without a class (`{}`, `true`). */
  schema?: SchemaObject;
  description?: string;
  headers?: ResponseHeaderName[];
}): MethodDecorator {
  const response = (etag: object | undefined): MethodDecorator =>
    ApiResponse({
      status: 201,
      description: opts.description ?? 'Created.',
      ...(opts.type ? { type: opts.type } : {}),
      ...(opts.schema ? { schema: opts.schema } : {}),
      headers: { ...headersOf(['Location', ...(opts.headers ?? [])], ['Location']), ...etag },
    });
  // A @Conditional route below this one sends an ETag with the 201: describe it too.
  const described: MethodDecorator = (target, key, descriptor) =>
    response(etagHeaderOf(descriptor.value as object))(target, key, descriptor);
  return applyDecorators(SetMetadata(LOCATION_OF, opts.location), UseInterceptors(LocationInterceptor), described);
}
