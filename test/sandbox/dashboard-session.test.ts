/** The dashboard's cookies over https: Secure as well as HttpOnly and SameSite=Strict, and only after signing in. */
import { Agent, request } from 'undici';

import { ADMIN, selfSigned, start, type Sandbox } from './helpers';

let sb: Sandbox;
let agent: Agent;

beforeAll(async () => {
	const pems = selfSigned();
	sb = await start({ tls: { cert: pems.cert, key: pems.key }, host: 'localhost' });
	agent = new Agent({ connect: { ca: pems.cert } });
});
afterAll(async () => {
	await agent?.close();
	await sb?.close();
});

const cookieOf = (headers: Record<string, string | string[] | undefined>) => {
	const h = headers['set-cookie'];
	return (Array.isArray(h) ? h : h ? [h] : []).map((c) => c.split(';').map((x) => x.trim()));
};

it('over https the CSRF and session cookies are Secure, HttpOnly, SameSite=Strict, for /dashboard only', async () => {
	expect(sb.url).toMatch(/^https:/);
	const page = await request(`${sb.url}/dashboard/login`, { dispatcher: agent });
	const html = await page.body.text();
	const [csrfCookie] = cookieOf(page.headers);
	expect(csrfCookie[0]).toMatch(/^sbx_csrf=/);
	expect(csrfCookie).toEqual(
		expect.arrayContaining(['Path=/dashboard', 'HttpOnly', 'Secure', 'SameSite=Strict']),
	);
	const token = /name="_csrf" value="([^"]+)"/.exec(html)![1];
	const login = await request(`${sb.url}/dashboard/login`, {
		method: 'POST',
		dispatcher: agent,
		headers: { cookie: csrfCookie[0], 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({ _csrf: token, token: ADMIN }).toString(),
	});
	await login.body.dump();
	expect(login.statusCode).toBe(303);
	const [session] = cookieOf(login.headers);
	expect(session[0]).toMatch(/^sbx_session=/);
	expect(session).toEqual(
		expect.arrayContaining(['Path=/dashboard', 'HttpOnly', 'Secure', 'SameSite=Strict']),
	);
	const signedIn = await request(`${sb.url}/dashboard/appointments/`, {
		dispatcher: agent,
		headers: { cookie: `${csrfCookie[0]}; ${session[0]}` },
	});
	expect(signedIn.statusCode).toBe(200);
	expect(signedIn.headers['content-security-policy']).toMatch(
		/default-src 'none'.*style-src 'sha256-/,
	);
	await signedIn.body.dump();
	// a wrong token sets no session
	const page2 = await request(`${sb.url}/dashboard/login`, { dispatcher: agent });
	const token2 = /name="_csrf" value="([^"]+)"/.exec(await page2.body.text())![1];
	const wrong = await request(`${sb.url}/dashboard/login`, {
		method: 'POST',
		dispatcher: agent,
		headers: {
			cookie: cookieOf(page2.headers)[0][0],
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: new URLSearchParams({ _csrf: token2, token: `${ADMIN}x` }).toString(),
	});
	await wrong.body.dump();
	expect(wrong.statusCode).toBe(401);
	expect(cookieOf(wrong.headers).some((c) => c[0].startsWith('sbx_session='))).toBe(false);
});

it('a signed-in page loaded without the CSRF cookie (a browser restart) sets one CSRF secret, as long-lived as the sign-in, that its forms all match', async () => {
	const login = await request(`${sb.url}/dashboard/login`, { dispatcher: agent });
	const loginToken = /name="_csrf" value="([^"]+)"/.exec(await login.body.text())![1];
	const signedIn = await request(`${sb.url}/dashboard/login`, {
		method: 'POST',
		dispatcher: agent,
		headers: {
			cookie: cookieOf(login.headers)[0][0],
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: new URLSearchParams({ _csrf: loginToken, token: ADMIN }).toString(),
	});
	await signedIn.body.dump();
	const set = cookieOf(signedIn.headers);
	const session = set.find((c) => c[0].startsWith('sbx_session='))!;
	const csrf = set.find((c) => c[0].startsWith('sbx_csrf='))!;
	const maxAge = (c: string[]) => c.find((x) => x.startsWith('Max-Age='));
	expect(maxAge(session)).toBe('Max-Age=43200');
	expect(maxAge(csrf)).toBe(maxAge(session)); // renewed at sign-in, for as long as the session

	// the browser kept the session only; a page with its own form and Sign out
	const page = await request(`${sb.url}/dashboard/appointments/new`, {
		dispatcher: agent,
		headers: { cookie: session[0] },
	});
	const html = await page.body.text();
	const secrets = cookieOf(page.headers).filter((c) => c[0].startsWith('sbx_csrf='));
	expect(secrets).toHaveLength(1);
	expect(maxAge(secrets[0])).toBe(maxAge(session));
	const tokens = [...html.matchAll(/name="_csrf" value="([^"]+)"/g)].map((m) => m[1]);
	expect(tokens).toHaveLength(2);
	for (const token of tokens) {
		const create = await request(`${sb.url}/dashboard/appointments/new`, {
			method: 'POST',
			dispatcher: agent,
			headers: {
				cookie: `${session[0]}; ${secrets[0][0]}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: new URLSearchParams({ _csrf: token, email: 'one-secret@example.com' }).toString(),
		});
		await create.body.dump();
		expect(create.statusCode).toBe(303);
	}
});

it('a form sent after the session ended changes nothing and leads through sign-in back to the form', async () => {
	const r = await request(`${sb.url}/dashboard/appointments/new`, {
		method: 'POST',
		dispatcher: agent,
		headers: {
			referer: `${sb.url}/dashboard/appointments/new`,
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: new URLSearchParams({ email: 'late@example.com' }).toString(),
	});
	expect(r.statusCode).toBe(401);
	const html = await r.body.text();
	expect(html).toContain('nothing was changed');
	expect(html).toContain('href="/dashboard/login?next=%2Fdashboard%2Fappointments%2Fnew"');
	// a foreign page is not a way back
	const foreign = await request(`${sb.url}/dashboard/appointments/new`, {
		method: 'POST',
		dispatcher: agent,
		headers: {
			referer: 'https://evil.example/dashboard/x',
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: '',
	});
	expect(await foreign.body.text()).toContain('href="/dashboard/login?next=%2Fdashboard%2F"');
});
