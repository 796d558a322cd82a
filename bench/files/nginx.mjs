/**
 * The reference for an upload through a TLS-terminating web server: Debian's nginx,
 * started on a free loopback port with a generated configuration, receiving a PUT of
 * the test file (WebDAV module) and writing its body to disk.
 *
 * `startNginx({ dir, port, certFile, keyFile })` resolves to
 * `{ url, pids(), stop(), version }`, or to `null` when no nginx binary is installed (the
 * benchmark then skips only that row). `dir` receives the configuration, the logs, the
 * request-body temp folder and the uploaded files (`www/upload/`), all on the same disk,
 * so that nginx's final step is a rename, not a copy.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';

// BENCH_NGINX names the binary (only that one is tried)
const CANDIDATES = process.env.BENCH_NGINX
  ? [process.env.BENCH_NGINX]
  : ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

export function nginxBinary() {
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/**
 * Runs its worker as the current user; one worker (one upload is one connection, served by one worker whatever their number);
 * TLS with the gateway's certificate and nginx's default ciphers; no access log; the body
 * is received into client_body_temp_path and renamed into the root by the DAV module.
 */
export function nginxConfig({ dir, port, certFile, keyFile }) {
  // the worker writes into the bench's own (owner-only) folder: run it as the bench's user
  return `user ${userInfo().username};
worker_processes 1;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  sendfile on;
  client_body_temp_path ${dir}/client_body_temp;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi_temp;
  uwsgi_temp_path ${dir}/uwsgi_temp;
  scgi_temp_path ${dir}/scgi_temp;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${certFile};
    ssl_certificate_key ${keyFile};
    ssl_protocols TLSv1.2 TLSv1.3;
    client_max_body_size 2g;
    client_body_buffer_size 1m;
    location /upload/ {
      root ${dir}/www;
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw;
    }
  }
}
`;
}

export async function startNginx({ dir, port, certFile, keyFile }) {
  const binary = nginxBinary();
  if (!binary) return null;
  mkdirSync(path.join(dir, 'www', 'upload'), { recursive: true });
  mkdirSync(path.join(dir, 'client_body_temp'), { recursive: true });
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig({ dir, port, certFile, keyFile }));
  const test = spawnSync(binary, ['-t', '-q', '-p', dir, '-c', conf]);
  if (test.status !== 0) throw new Error(`nginx -t: ${test.stderr.toString().trim()}`);
  const master = spawn(binary, ['-p', dir, '-c', conf], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => master.on('exit', resolve));
  const version = spawnSync(binary, ['-v'])
    .stderr.toString()
    .trim()
    .replace(/^nginx version: /, '');
  // ready once the worker exists and the port answers
  const deadline = Date.now() + 10_000;
  const workers = () =>
    spawnSync('pgrep', ['-P', String(master.pid)])
      .stdout.toString()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  while (workers().length === 0 || !existsSync(path.join(dir, 'nginx.pid'))) {
    if (master.exitCode !== null)
      throw new Error(`nginx exited ${master.exitCode}: ${readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
    if (Date.now() > deadline) throw new Error('nginx did not start within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `https://127.0.0.1:${port}/upload/`,
    root: path.join(dir, 'www', 'upload'),
    version,
    /** master and worker: the worker does the TLS and the writing. */
    pids: () => ({ 'nginx worker': workers()[0] }),
    async stop() {
      if (master.exitCode === null) master.kill('SIGQUIT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (master.exitCode === null) master.kill('SIGKILL');
    },
  };
}
