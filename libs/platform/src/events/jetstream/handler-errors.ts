import { ArgumentsHost, Catch } from '@nestjs/common';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { JetStreamContext } from './jetstream-consumer';

/**
 * Nest's RPC exception handling turns every error that is not an RpcException into
 * `{ status: 'error', message: 'Internal server error' }`. A JetStream handler's error
 * is what the transport logs with each failed delivery and writes as the dead letter's
 * reason, so this catch-all filter (global on the transport's microservice, consulted
 * after any filter of the handler's class or method) hands it on unchanged.
 */
@Catch()
export class JetStreamHandlerErrorFilter extends BaseRpcExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (host.getType() === 'rpc' && host.switchToRpc().getContext() instanceof JetStreamContext) {
      return throwError(() => exception);
    }
    return super.catch(exception, host) as Observable<never>;
  }
}
