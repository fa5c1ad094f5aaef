/**
 * Deterministic seed data. The same `seedValue` gives the same keys, names and codes; start times are placed
 * relative to "now" (from now-14 d to now+14 d, on quarter hours between 08:00 and 19:45 in the account time zone).
 * The first appointments are placed so that yesterday, today and tomorrow each have every status and a CONFIRMED
 * appointment in every calendar (demos and end-to-end tests filter "today, CONFIRMED, one calendar").
 */
import { DateTime } from 'luxon';

import { CANCELLED_STATUSES, STATUSES, type Appointment, type Status } from './vocabulary';

export function rng(seed: number): () => number {
	let a = seed >>> 0 || 0x9e3779b9;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export type Rand = () => number;
const pick = <T>(r: Rand, list: readonly T[]): T => list[Math.floor(r() * list.length)];
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

export function uuid(r: Rand): string {
	const hex = (n: number) => {
		let s = '';
		for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
		return s;
	};
	return `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(r, ['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
}

const CODE_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function searchCode(r: Rand): string {
	let s = '';
	for (let i = 0; i < 8; i++) s += CODE_CHARS[Math.floor(r() * CODE_CHARS.length)];
	return s;
}

const FIRST = [
	'Ana',
	'Benjamín',
	'Camila',
	'Diego',
	'Elena',
	'Felipe',
	'Gabriela',
	'Héctor',
	'Isidora',
	'Javier',
	'Karla',
	'Lucas',
	'María',
	'Nicolás',
	'Olivia',
	'Pablo',
	'Renata',
	'Sebastián',
	'Tomás',
	'Valentina',
	'Ximena',
	'Yolanda',
	'Zoe',
	'Agustín',
];
const LAST = [
	'González',
	'Muñoz',
	'Rojas',
	'Díaz',
	'Pérez',
	'Soto',
	'Contreras',
	'Silva',
	'Martínez',
	'Sepúlveda',
	'Morales',
	'Rodríguez',
	'López',
	'Fuentes',
	'Hernández',
	'Torres',
	'Araya',
	'Flores',
	'Espinoza',
	'Valenzuela',
];
const CALENDARS = [
	'Dra. Ana Rojas - Odontología',
	'Dr. Pablo Soto - Kinesiología',
	'Sala de Procedimientos 1',
	'Dra. Camila Fuentes - Nutrición',
	'Dr. Diego Araya - Dermatología',
	'Box Online',
];
const OWNERS = [
	'recepcion@clinica.example',
	'admin@clinica.example',
	'agenda@clinica.example',
	'ana.rojas@clinica.example',
];

function ascii(s: string): string {
	return s
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase();
}

/** Chilean RUT with its check digit, formatted 12.345.678-K. */
function rut(r: Rand): string {
	const body = int(r, 5_000_000, 25_999_999);
	let sum = 0;
	let mul = 2;
	for (let n = body; n > 0; n = Math.floor(n / 10)) {
		sum += (n % 10) * mul;
		mul = mul === 7 ? 2 : mul + 1;
	}
	const dv = 11 - (sum % 11);
	const check = dv === 11 ? '0' : dv === 10 ? 'K' : String(dv);
	return `${body.toLocaleString('de-DE')}-${check}`;
}

export interface SeedWorld {
	calendars: Array<{ calendar_key: string; name: string }>;
	services: string[];
	tags: string[];
	persons: Array<{
		person_key: string;
		client_key: string;
		full_name: string;
		email: string;
		phone: string;
		identification_code: string;
	}>;
	owners: string[];
}

// The last world made: a reset asks for the same one twice (its appointments and its admin creations).
let lastWorld: { seedValue: number; world: SeedWorld } | undefined;

/** The calendars, services, tags and people of a seed value (the same objects for the same value: read only). */
export function world(seedValue: number): SeedWorld {
	if (lastWorld?.seedValue !== seedValue) lastWorld = { seedValue, world: makeWorld(seedValue) };
	return lastWorld.world;
}

function makeWorld(seedValue: number): SeedWorld {
	const r = rng(seedValue * 7919 + 17);
	const calendars = CALENDARS.map((name) => ({ calendar_key: uuid(r), name }));
	const services = Array.from({ length: 8 }, () => uuid(r));
	const tags = Array.from({ length: 6 }, () => uuid(r));
	const persons = Array.from({ length: 120 }, (_, i) => {
		const first = pick(r, FIRST);
		const last = pick(r, LAST);
		const last2 = pick(r, LAST);
		return {
			person_key: uuid(r),
			client_key: uuid(r),
			full_name: `${first} ${last} ${last2}`,
			email: `${ascii(first)}.${ascii(last)}${i}@example.com`,
			phone: `+56 9 ${int(r, 1000, 9999)} ${int(r, 1000, 9999)}`,
			identification_code: rut(r),
		};
	});
	return { calendars, services, tags, persons, owners: OWNERS };
}

/** Generates the attributes that a new appointment lacks (admin creation). */
export function generateAppointment(
	r: Rand,
	w: SeedWorld,
	startMs: number,
	status: Status,
	createdMs: number,
	calendarIndex?: number,
): Appointment {
	const p = pick(r, w.persons);
	const services = w.services.filter(() => r() < 0.2);
	if (!services.length) services.push(pick(r, w.services));
	return {
		appointment_key: uuid(r),
		search_code: searchCode(r),
		status,
		start: startMs,
		calendar: {
			...(calendarIndex === undefined
				? pick(r, w.calendars)
				: w.calendars[calendarIndex % w.calendars.length]),
		},
		person: { full_name: p.full_name, email: p.email },
		client_key: p.client_key,
		person_key: p.person_key,
		phone: p.phone,
		identification_code: p.identification_code,
		external_id: r() < 0.7 ? `EXT-${int(r, 100000, 999999)}` : null,
		service_keys: services,
		tag_keys: w.tags.filter(() => r() < 0.25),
		owner_user: pick(r, w.owners),
		created: createdMs,
		is_cancelled: CANCELLED_STATUSES.has(status),
	};
}

const PAST: Array<[Status, number]> = [
	['ATTENDED', 34],
	['NO_SHOW', 10],
	['CONFIRMED', 12],
	['CANCELED', 8],
	['CANCELED_CLIENT', 8],
	['CANCELED_GOOGLE', 3],
	['PENDING', 5],
	['IN_PROGRESS', 2],
	['PENDING_PAYMENT', 6],
	['PENDING_FORM', 6],
	['PENDING_COMPANIONS', 6],
];
const FUTURE: Array<[Status, number]> = [
	['CONFIRMED', 36],
	['PENDING', 18],
	['PENDING_PAYMENT', 8],
	['PENDING_FORM', 8],
	['PENDING_COMPANIONS', 6],
	['CANCELED', 6],
	['CANCELED_CLIENT', 8],
	['CANCELED_GOOGLE', 3],
	['ATTENDED', 3],
	['NO_SHOW', 2],
	['IN_PROGRESS', 2],
];
function weighted(r: Rand, table: Array<[Status, number]>): Status {
	const total = table.reduce((s, [, w]) => s + w, 0);
	let x = r() * total;
	for (const [s, w] of table) {
		x -= w;
		if (x < 0) return s;
	}
	return table[0][0];
}

export function seedAppointments(
	count: number,
	seedValue: number,
	nowMs: number,
	zone: string,
): Appointment[] {
	const w = world(seedValue);
	const r = rng(seedValue);
	const now = DateTime.fromMillis(nowMs, { zone });
	const out: Appointment[] = [];
	const codes = new Set<string>();
	const keys = new Set<string>();
	const add = (startMs: number, status: Status, calendarIndex?: number) => {
		const createdMs = Math.min(nowMs, startMs) - int(r, 1, 30 * 24 * 60) * 60_000;
		const a = generateAppointment(r, w, startMs, status, createdMs, calendarIndex);
		while (codes.has(a.search_code)) a.search_code = searchCode(r);
		while (keys.has(a.appointment_key)) a.appointment_key = uuid(r);
		codes.add(a.search_code);
		keys.add(a.appointment_key);
		out.push(a);
	};
	const slot = (day: DateTime, i: number) =>
		day
			.startOf('day')
			.set({ hour: 8 + (i % 12), minute: [0, 15, 30, 45][Math.floor(i / 12) % 4] })
			.toMillis();

	// Guaranteed coverage of today, yesterday and tomorrow (today first, for small seeds).
	const guaranteed: Array<[DateTime, Status, number]> = [];
	for (const [d, day] of [now, now.minus({ days: 1 }), now.plus({ days: 1 })].entries()) {
		STATUSES.forEach((s, i) => guaranteed.push([day, s, i + d]));
		for (let c = 0; c < w.calendars.length; c++) guaranteed.push([day, 'CONFIRMED', c]);
	}
	for (const [n, [day, status, cal]] of guaranteed.entries()) {
		if (out.length >= count) break;
		add(slot(day, n * 5 + cal), status, cal);
	}
	// The rest spread over now-14 d .. now+14 d.
	const first = now.minus({ days: 14 }).startOf('day');
	// Luxon's zone arithmetic is most of the cost of a large seed, and there are only 29 × 12 × 4 slots: each is
	// computed once per call (the random draws stay in the same order, so the data is the same).
	const slots = new Map<number, number>();
	while (out.length < count) {
		const d = int(r, 0, 28);
		const hour = int(r, 8, 19);
		const minute = pick(r, [0, 15, 30, 45]);
		const k = (d * 24 + hour) * 60 + minute;
		if (!slots.has(k)) slots.set(k, first.plus({ days: d }).set({ hour, minute }).toMillis());
		let start = slots.get(k)!;
		const lo = nowMs - 14 * 86400_000;
		const hi = nowMs + 14 * 86400_000;
		if (start < lo) start += 86400_000;
		if (start > hi) start -= 86400_000;
		add(start, weighted(r, start < nowMs ? PAST : FUTURE));
	}
	return out;
}
