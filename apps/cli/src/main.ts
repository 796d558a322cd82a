import { run } from './cli';

const controller = new AbortController();
// Ctrl-C: stop the command where it is (an upload or download continues when run again); a second one exits at once.
process.once('SIGINT', () => {
  controller.abort(new Error('interrupted'));
  process.once('SIGINT', () => process.exit(130));
});

const stdin = async () => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stdin,
  signal: controller.signal,
}).then((code) => {
  process.exitCode = code;
  // A followed feed or an aborted upload may leave sockets open: do not wait for them.
  setImmediate(() => process.exit(code));
});
