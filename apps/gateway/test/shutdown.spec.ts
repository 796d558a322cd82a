import { startGatewayProcess } from './support/gateway-process';

/**
 * A stop asked with SIGTERM (Kubernetes, compose, `npm start`) drains the gateway and ends
 * it with exit status 0, as the services do: a process ended by the signal itself (status
 * 143) reads as a crash to supervisors and to the production-install check.
 */
describe('gateway process: SIGTERM', () => {
  it('closes both listeners and exits with status 0', async () => {
    const gateway = await startGatewayProcess({ GATEWAY_DOMAIN: 'localhost' });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      gateway.child.once('exit', (code, signal) => resolve([code, signal])),
    );
    gateway.child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  }, 60_000);
});
