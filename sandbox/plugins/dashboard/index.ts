/**
 * The service's web dashboard under /dashboard/: server-rendered pages, signed in with the admin token. The session
 * is a random id in an HttpOnly, SameSite=Strict cookie (Secure over https); every form carries a CSRF token
 * (@fastify/csrf-protection). One inline script (copy and reveal buttons) allowed by its hash; no external asset.
 */
import crypto from 'node:crypto';
import cookie, { type CookieSerializeOptions } from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { PRODUCT } from '../../product';
import { appointmentPages } from './appointmentListPages';
import { deliveryPages } from './deliveryPages';
import { CSS_HASH, SCRIPT_HASH, field, html, layout, type Page } from './html';
import { mailboxPages } from './mailboxPages';
import { settingsPages } from './settingsPages';
import { webhookPages } from './webhookPages';

declare module 'fastify' {
	interface FastifyReply {
		/** Sends a dashboard page (with the CSRF token for its forms). */
		page(p: Omit<Page, 'csrf'>, status?: number): FastifyReply;
		csrfToken(): string;
	}
}

const SESSION = 'sbx_session';
const CSRF = 'sbx_csrf';
const SESSION_MS = 12 * 60 * 60 * 1000;

interface Sessions {
	/** The signed-in session of a request, if any (expired ones are forgotten). */
	of(req: FastifyRequest): string | undefined;
	open(): string;
	close(id: string): void;
}

/** Session ids in memory with their expiry; the cookie holds the id, signed. */
function sessionStore(): Sessions {
	const sessions = new Map<string, number>(); // id -> expiry
	return {
		of(req) {
			const c = req.cookies[SESSION];
			if (!c) return undefined;
			const u = req.unsignCookie(c);
			if (!u.valid || !u.value) return undefined;
			const exp = sessions.get(u.value);
			if (exp === undefined || exp < Date.now()) {
				sessions.delete(u.value);
				return undefined;
			}
			return u.value;
		},
		open() {
			const id = crypto.randomBytes(24).toString('base64url');
			sessions.set(id, Date.now() + SESSION_MS);
			return id;
		},
		close: (id) => void sessions.delete(id),
	};
}

/**
 * reply.page() and reply.csrfToken(): a page carries the CSRF token for its forms when signed in. One token per
 * reply: without a CSRF cookie each generateCsrf() call makes a new secret, and a page with two forms (its own and
 * Sign out) would hand the browser a cookie that matches only the last one.
 */
function pages(app: FastifyInstance, sessions: Sessions): void {
	const session = sessions.of;
	const tokens = new WeakMap<FastifyReply, string>();
	app.decorateReply('csrfToken', function (this: FastifyReply) {
		let token = tokens.get(this);
		if (token === undefined) tokens.set(this, (token = this.generateCsrf()));
		return token;
	});
	app.decorateReply('page', function (this: FastifyReply, p: Omit<Page, 'csrf'>, status = 200) {
		const signedIn = session(this.request) !== undefined;
		return this.code(status)
			.type('text/html; charset=utf-8')
			.send(layout({ ...p, csrf: signedIn ? this.csrfToken() : undefined }));
	});
}

/** Security headers on every page; signed out: to the sign-in page (GET) or 401; POST needs the CSRF token. */
function guards(app: FastifyInstance, sessions: Sessions): void {
	const session = sessions.of;
	app.addHook('onRequest', async (req, reply) => {
		reply.header(
			'content-security-policy',
			`default-src 'none'; style-src ${CSS_HASH}; script-src ${SCRIPT_HASH}; img-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
		);
		reply.header('x-content-type-options', 'nosniff');
		reply.header('referrer-policy', 'same-origin');
		reply.header('cache-control', 'no-store');
		const path = req.url.split('?')[0];
		if (path === '/dashboard/login') return;
		if (session(req) !== undefined) return;
		if (req.method === 'GET' || req.method === 'HEAD')
			return reply.redirect(`/dashboard/login?next=${encodeURIComponent(req.url)}`, 303);
		return reply
			.code(401)
			.type('text/html; charset=utf-8')
			.send(
				layout({
					title: 'Signed out',
					body: html`<h1>Signed out</h1>
						<p>
							Your session has ended; nothing was changed.
							<a href="/dashboard/login?next=${encodeURIComponent(formPage(req) ?? '/dashboard/')}"
								>Sign in</a
							>
							again, and you are back at the form.
						</p>`,
				}),
			);
	});
	app.addHook('preHandler', (req, reply, done) => {
		if (req.method !== 'POST') return done();
		return app.csrfProtection(req, reply, done);
	});
	app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
		const status =
			err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
		const csrf = err.code === 'FST_CSRF_INVALID_TOKEN' || err.code === 'FST_CSRF_MISSING_SECRET';
		const form = csrf ? formPage(req) : undefined;
		return reply.page(
			{
				title: 'Refused',
				body: html`<h1>Refused</h1>
					<p class="notice bad" role="alert">
						${csrf
							? 'This form was not sent from the dashboard (missing or invalid CSRF token), or from a page loaded before your browser lost its dashboard cookies. Nothing was changed. Reload the form and send it again.'
							: err.message}
					</p>
					<p>
						${form ? html`<a href="${form}">Back to the form</a> · ` : ''}<a href="/dashboard/"
							>Back to the dashboard</a
						>
					</p>`,
			},
			status,
		);
	});
}

/** The dashboard page a form was sent from (the Referer, same origin only), to load it again with a fresh token. */
function formPage(req: FastifyRequest): string | undefined {
	try {
		const from = new URL(req.headers.referer ?? '');
		return from.host === req.headers.host && from.pathname.startsWith('/dashboard/')
			? from.pathname + from.search
			: undefined;
	} catch {
		return undefined;
	}
}

/** Sign in with the admin token, sign out. */
function signIn(
	app: FastifyInstance,
	sessions: Sessions,
	cookieOpts: CookieSerializeOptions,
): void {
	const s = app.sandbox;
	const loginPage = (reply: FastifyReply, next: string, error?: string) =>
		reply
			.code(error ? 401 : 200)
			.type('text/html; charset=utf-8')
			.send(
				layout({
					title: 'Sign in',
					body: html`<div class="login card">
						<p><strong>${PRODUCT}</strong> <span class="pill wait">local sandbox</span></p>
						<h1>Sign in</h1>
						<p class="muted">
							Paste the admin token printed at start: <code>npm run dev</code> shows it as “Admin
							token for /__sandbox/ and the dashboard”, <code>npm run sandbox</code> as
							<code>SANDBOX_ADMIN_TOKEN=</code>.
						</p>
						<form method="post" action="/dashboard/login">
							<input type="hidden" name="_csrf" value="${reply.csrfToken()}" /><input
								type="hidden"
								name="next"
								value="${next}"
							/>
							${field({
								name: 'token',
								label: 'Admin token',
								type: 'password',
								required: true,
								errors: error ? [error] : undefined,
								attrs: 'autocomplete="current-password" autofocus',
							})}
							<button class="primary" type="submit">Sign in</button>
						</form>
					</div>`,
				}),
			);
	const safeNext = (n: unknown) =>
		typeof n === 'string' && /^\/dashboard\/[^\\]*$/.test(n) && !n.startsWith('//')
			? n
			: '/dashboard/';

	app.get('/login', async (req, reply) =>
		loginPage(reply, safeNext((req.query as { next?: string }).next)),
	);
	app.post('/login', async (req, reply) => {
		const b = (req.body ?? {}) as { token?: unknown; next?: unknown };
		const given = typeof b.token === 'string' ? Buffer.from(b.token) : Buffer.alloc(0);
		const want = Buffer.from(s.adminToken);
		if (given.length !== want.length || !crypto.timingSafeEqual(given, want))
			return loginPage(reply, safeNext(b.next), 'Not the admin token.');
		const id = sessions.open();
		reply.setCookie(SESSION, id, { ...cookieOpts, maxAge: SESSION_MS / 1000 });
		// the CSRF secret lives as long as the sign-in (a browser restart keeps both)
		const secret = req.unsignCookie(req.cookies[CSRF] ?? '').value;
		if (secret) reply.setCookie(CSRF, secret, { ...cookieOpts, maxAge: SESSION_MS / 1000 });
		return reply.redirect(safeNext(b.next), 303);
	});
	app.post('/logout', async (req, reply) => {
		const id = sessions.of(req);
		if (id) sessions.close(id);
		reply.clearCookie(SESSION, cookieOpts);
		return reply.redirect('/dashboard/login', 303);
	});
}

export default async function dashboard(app: FastifyInstance) {
	const secure = app.sandbox.options.tls !== undefined;
	const cookieOpts = {
		path: '/dashboard',
		httpOnly: true,
		sameSite: 'strict' as const,
		secure,
		signed: true,
	};
	await app.register(cookie, { secret: crypto.randomBytes(32).toString('base64url') });
	await app.register(formbody, { bodyLimit: 1_048_576 });
	await app.register(csrf, {
		sessionPlugin: '@fastify/cookie',
		cookieKey: CSRF,
		cookieOpts: { ...cookieOpts, maxAge: SESSION_MS / 1000 },
	});
	const sessions = sessionStore();
	pages(app, sessions);
	guards(app, sessions);
	signIn(app, sessions, cookieOpts);
	app.get('/', async (_req, reply) => reply.redirect('/dashboard/appointments/', 303));
	app.setNotFoundHandler(async (_req, reply) =>
		reply.page(
			{
				title: 'Not found',
				body: html`<h1>Not found</h1>
					<p>No such page. <a href="/dashboard/">Dashboard</a></p>`,
			},
			404,
		),
	);

	await app.register(webhookPages);
	await app.register(appointmentPages);
	await app.register(deliveryPages);
	await app.register(mailboxPages);
	await app.register(settingsPages);
}
