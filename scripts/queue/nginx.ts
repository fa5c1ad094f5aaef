/**
 * nginx in front of the queue-mode stack (Debian's package, a config and all state of our own under .dev/):
 * terminates https and routes as n8n's queue-mode docs recommend: /webhook/ to the webhook processes, everything
 * else (the editor, the API, /webhook-test/ whose listeners live in the main) to the main.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort, spawnGroup, type Managed } from '../proc';
import { NGINX, waitForPort } from './services';

export interface Nginx {
	/** https://localhost:PORT, no trailing slash */
	url: string;
	port: number;
	accessLog: string;
	proc: Managed;
	stop(): Promise<void>;
}

export interface NginxOptions {
	dir: string;
	certPath: string;
	keyPath: string;
	/** host:port of each webhook process (plain http) */
	webhookUpstreams: string[];
	/** https host:port of the main process (editor, API, /webhook-test/) */
	main: string;
	/**
	 * How /webhook/ requests are spread: `round-robin` (n8n's docs), or `event`: by a hash of the body, so every
	 * copy and redelivery of one event reaches the same webhook process, whose trigger memory then drops it.
	 */
	balance: 'round-robin' | 'event';
	/** Default: a free port. */
	port?: number;
}

interface Files {
	dir: string;
	tmp: string;
	accessLog: string;
	errorLog: string;
}

/** The two upstreams: the webhook processes (balanced as `opts.balance` says) and the main. */
function upstreams(opts: NginxOptions): string {
	return `
  # n8n's servers close a keep-alive connection after 5 s idle (Node's default keepAliveTimeout); nginx keeps
  # them 60 s, and a request sent on one Node is closing is reset (502). keepalive_timeout below 5 s avoids that.
  # max_fails=0: one failed request does not take a webhook process out of the hash for 10 s (nginx's default
  # max_fails=1 fail_timeout=10s), which would send that process's events, and then later copies of events it
  # already saw, to the other process, whose memory does not know them. A process that is down still fails over:
  # a refused connection is retried on the other one (proxy_next_upstream error), for POST too, as nothing was sent.
  upstream n8n_webhooks {${opts.balance === 'event' ? '\n    hash $request_body consistent;' : ''}
${opts.webhookUpstreams.map((u) => `    server ${u} max_fails=0;`).join('\n')}
    keepalive 32;
    keepalive_timeout 4s;
  }
  upstream n8n_main {
    server ${opts.main};
    keepalive 8;
    keepalive_timeout 4s;
  }`;
}

/** The https server: /webhook/ to the webhook processes, the rest to the main; both webhook paths logged. */
function server(opts: NginxOptions, port: number, files: Files): string {
	return `
  server {
    listen 127.0.0.1:${port} ssl;
    server_name localhost;
    ssl_certificate ${opts.certPath};
    ssl_certificate_key ${opts.keyPath};
    client_max_body_size 16m;
    # The whole body in memory, so that $request_body (the balancing key) is set.
    client_body_buffer_size 1m;
    proxy_http_version 1.1;
    proxy_set_header Host $host:$server_port;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto https;
    proxy_buffering off;
    proxy_read_timeout 300s;
    location /webhook/ {
      access_log ${files.accessLog} upstream;
      proxy_set_header Connection "";
      proxy_pass http://n8n_webhooks;
    }
    location /webhook-test/ {
      access_log ${files.accessLog} upstream;
      proxy_set_header Connection "";
      proxy_ssl_verify off;
      proxy_pass https://n8n_main;
    }
    location / {
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_ssl_verify off;
      proxy_pass https://n8n_main;
    }
  }`;
}

function nginxConf(opts: NginxOptions, port: number, files: Files): string {
	const { dir, tmp } = files;
	return `
daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${files.errorLog} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${tmp}/body;
  proxy_temp_path ${tmp}/proxy;
  fastcgi_temp_path ${tmp}/fastcgi;
  uwsgi_temp_path ${tmp}/uwsgi;
  scgi_temp_path ${tmp}/scgi;
  log_format upstream '$msec\t$request_method\t$uri\t$status\t$upstream_addr\t$upstream_status\t$request_time\t$upstream_response_time';
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }${upstreams(opts)}${server(opts, port, files)}
}
`;
}

/** Starts nginx on `opts.port` or a free one. The access log names the upstream that answered each request. */
export async function startNginx(opts: NginxOptions): Promise<Nginx> {
	const dir = opts.dir;
	const files: Files = {
		dir,
		tmp: path.join(dir, 'tmp'),
		accessLog: path.join(dir, 'access.log'),
		errorLog: path.join(dir, 'error.log'),
	};
	fs.mkdirSync(files.tmp, { recursive: true });
	// nginx's worker processes run as `nobody` when started as root: they write request bodies here.
	fs.chmodSync(files.tmp, 0o777);
	const port = opts.port ?? (await freePort());
	const confFile = path.join(dir, 'nginx.conf');
	fs.writeFileSync(confFile, nginxConf(opts, port, files));
	const logFile = path.join(dir, 'nginx.out');
	const out = fs.openSync(logFile, 'a');
	const proc = spawnGroup('nginx', NGINX, ['-e', files.errorLog, '-p', dir, '-c', confFile], {
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	await waitForPort('nginx', port, proc, files.errorLog);
	// SIGTERM is nginx's fast shutdown.
	return {
		url: `https://localhost:${port}`,
		port,
		accessLog: files.accessLog,
		proc,
		stop: () => proc.stop(),
	};
}

/**
 * The access log's /webhook/ lines. `upstreams`: every process nginx tried, in order (more than one when it
 * failed over); the last one answered `status`.
 */
export function readAccessLog(
	file: string,
): Array<{ at: number; method: string; path: string; status: number; upstreams: string[] }> {
	if (!fs.existsSync(file)) return [];
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((l) => {
			const [at, method, p, status, upstreams] = l.split('\t');
			return {
				at: Number(at),
				method,
				path: p,
				status: Number(status),
				upstreams: upstreams.split(/, | : /),
			};
		});
}
