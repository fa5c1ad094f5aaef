import {
	backoffDelay,
	parseRetryAfter,
} from '../../nodes/Appointments/transport/http/apiRequest.js';
import {
	buildApiUrl,
	encodeQuery,
	normaliseBaseUrl,
	resolveSameOrigin,
} from '../../nodes/Appointments/transport/http/apiUrls.js';
import {
	DEFAULT_POLICY,
	resolvePolicy,
} from '../../nodes/Appointments/transport/http/credentialInfo.js';
import {
	formatErrorBody,
	statusMessage,
} from '../../nodes/Appointments/transport/http/apiErrors.js';
import { redact } from '../../nodes/Appointments/transport/http/redaction.js';

describe('normaliseBaseUrl', () => {
	it.each([
		['https://api.example.com', 'https://api.example.com'],
		['https://api.example.com/', 'https://api.example.com'],
		['https://api.example.com//', 'https://api.example.com'],
		['https://api.example.com/api/v3', 'https://api.example.com'],
		['https://api.example.com/api/v3/', 'https://api.example.com'],
		['https://api.example.com/API/V3/', 'https://api.example.com'],
		['  https://api.example.com/prefix/api/v3/ ', 'https://api.example.com/prefix'],
		['http://127.0.0.1:8080/prefix/', 'http://127.0.0.1:8080/prefix'],
	])('%s -> %s', (raw, expected) => {
		expect(normaliseBaseUrl(raw)).toBe(expected);
	});

	it('never produces a double slash in API URLs', () => {
		for (const base of ['https://h', 'https://h/', 'https://h/api/v3', 'https://h/api/v3/']) {
			const url = buildApiUrl(base, 'webhooks/');
			expect(url).toBe('https://h/api/v3/webhooks/');
		}
	});
});

describe('buildApiUrl / encodeQuery', () => {
	it('encodes arrays as repeated parameters and drops undefined/null', () => {
		expect(
			encodeQuery({ tag_keys: ['a', 'b'], status: 'CONFIRMED', x: undefined, y: null, z: false }),
		).toBe('tag_keys=a&tag_keys=b&status=CONFIRMED&z=false');
		expect(buildApiUrl('https://h', 'appointments/', { start_date: '2026-01-01T00:00:00' })).toBe(
			'https://h/api/v3/appointments/?start_date=2026-01-01T00%3A00%3A00',
		);
	});

	it('refuses paths that could leave the origin or miss the trailing slash', () => {
		expect(() => buildApiUrl('https://h', 'https://evil.test/x/')).toThrow(/relative/);
		expect(() => buildApiUrl('https://h', '//evil.test/x/')).toThrow(/relative/);
		expect(() => buildApiUrl('https://h', '/webhooks/')).toThrow(/relative/);
		expect(() => buildApiUrl('https://h', 'webhooks')).toThrow(/end with/);
		expect(() => buildApiUrl('https://h', '../admin/')).toThrow(/segments/);
	});
});

describe('resolveSameOrigin', () => {
	const base = 'http://127.0.0.1:9000';
	const current = 'http://127.0.0.1:9000/api/v3/appointments/?page=1';
	it('resolves relative links against the current page', () => {
		expect(resolveSameOrigin(base, '/api/v3/appointments/?page=2', current)).toBe(
			'http://127.0.0.1:9000/api/v3/appointments/?page=2',
		);
		expect(resolveSameOrigin(base, '?page=3', current)).toBe(
			'http://127.0.0.1:9000/api/v3/appointments/?page=3',
		);
	});
	it('refuses other origins (host, port, scheme) and userinfo', () => {
		expect(
			resolveSameOrigin(base, 'http://127.0.0.1:9001/api/v3/appointments/?page=2', current),
		).toBeUndefined();
		expect(
			resolveSameOrigin(base, 'https://127.0.0.1:9000/api/v3/?page=2', current),
		).toBeUndefined();
		expect(resolveSameOrigin(base, '//evil.test/api/v3/', current)).toBeUndefined();
		expect(resolveSameOrigin(base, 'http://u:p@127.0.0.1:9000/api/v3/', current)).toBeUndefined();
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-03-01T12:00:00Z');
	it('reads delta-seconds', () => {
		expect(parseRetryAfter('0', now)).toBe(0);
		expect(parseRetryAfter('2', now)).toBe(2000);
		expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
		expect(parseRetryAfter(['3'], now)).toBe(3000);
	});
	it('reads HTTP-dates (future and past)', () => {
		expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
	});
	it('ignores garbage', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('-1', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('12abc', now)).toBeUndefined();
	});
});

describe('backoffDelay (full jitter)', () => {
	it('is uniform in [0, min(cap, base*2^(n-1))]', () => {
		expect(backoffDelay(1, 500, 60000, () => 0.999999)).toBe(499);
		expect(backoffDelay(3, 500, 60000, () => 0.5)).toBe(1000);
		expect(backoffDelay(20, 500, 60000, () => 0.5)).toBe(30000);
		expect(backoffDelay(4, 500, 60000, () => 0)).toBe(0);
		for (let i = 0; i < 200; i++) {
			const d = backoffDelay(5, 100, 1000);
			expect(d).toBeGreaterThanOrEqual(0);
			expect(d).toBeLessThan(1000);
		}
	});
});

describe('formatErrorBody', () => {
	it('joins DRF field maps', () => {
		expect(
			formatErrorBody({
				status: ['"FOO" is not a valid choice.'],
				start_date: ['Required.', 'Bad.'],
			}),
		).toBe('status: "FOO" is not a valid choice.; start_date: Required. Bad.');
	});
	it('prefers detail / message / error, nested too', () => {
		expect(formatErrorBody({ detail: 'Not found.' })).toBe('Not found.');
		expect(formatErrorBody({ message: 'Bad thing', code: 7 })).toBe('Bad thing');
		expect(formatErrorBody({ error: { message: 'deep' } })).toBe('deep');
		expect(formatErrorBody('{"error":"as text"}')).toBe('as text');
	});
	it('handles arrays, non_field_errors, html and empty', () => {
		expect(formatErrorBody(['a', 'b'])).toBe('a; b');
		expect(formatErrorBody({ non_field_errors: ['x'] })).toBe('x');
		expect(formatErrorBody('<html><body><h1>Bad Gateway</h1></body></html>')).toBe('Bad Gateway');
		expect(formatErrorBody(undefined)).toBe('');
	});
});

describe('statusMessage', () => {
	it('gives the human messages', () => {
		expect(statusMessage(401, { detail: 'x' })).toBe(
			'Authorization failed - check the access token',
		);
		expect(statusMessage(403, {}, 'webhooks')).toBe(
			'The access token lacks permission for webhooks',
		);
		expect(statusMessage(404, {}, 'Appointment abc')).toBe('Appointment abc not found');
		expect(statusMessage(400, { status: ['bad'] })).toBe(
			'The service rejected the request: status: bad',
		);
		expect(statusMessage(502, undefined)).toBe('The service failed (502 Bad Gateway)');
	});
});

describe('redact / resolvePolicy', () => {
	it('redacts secrets', () => {
		expect(redact('token secret-123 here secret-123', ['secret-123'])).toBe('token *** here ***');
	});
	it('redacts every run that holds an 8-character piece, as written, percent-encoded, or in another case', () => {
		const secret = 'Qx7+Lm/Zr9=Tb2~Kv';
		expect(redact('?a=1&t=Qx7%2BLm%2FZr9%3DTb2~Kv&b=2', [secret])).toBe('?a=1&t=***&b=2');
		expect(redact('?t=qx7%2blm%2fzr9%3d', [secret])).toBe('?t=***');
		expect(redact('http://qx7+lm/zr9=tb2.example/', [secret])).toBe('http://***.example/');
		expect(redact('the end Tb2~Kv only', [secret])).toBe('the end Tb2~Kv only'); // 6 characters: no piece
		expect(redact('100% sure: Qx7+Lm/Z', [secret])).toBe('100% sure: ***');
	});
	it('fills defaults, and takes what a partial policy sets', () => {
		expect(resolvePolicy()).toEqual(DEFAULT_POLICY);
		expect(resolvePolicy({ maxAttempts: 2, maxWaitMs: 0 })).toEqual({
			...DEFAULT_POLICY,
			maxAttempts: 2,
			maxWaitMs: 0,
		});
	});
});
