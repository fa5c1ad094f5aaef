/**
 * Escaping tagged templates and the dashboard's page layout: inline CSS and one small inline script (copy and
 * reveal buttons), each allowed by its hash in the Content-Security-Policy; no other script.
 */
import crypto from 'node:crypto';

import { PRODUCT } from '../../product';

/** Markup that is already safe (made by `html` or `raw`); every other interpolated value is escaped. */
export class Html {
	constructor(readonly text: string) {}
	toString() {
		return this.text;
	}
}

const ESCAPES: Record<string, string> = {
	'&': '&amp;',
	'<': '&lt;',
	'>': '&gt;',
	'"': '&quot;',
	"'": '&#39;',
};
export const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

function part(v: unknown): string {
	if (v instanceof Html) return v.text;
	if (Array.isArray(v)) return v.map(part).join('');
	if (v === undefined || v === null || v === false) return '';
	return escape(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
	let out = strings[0];
	for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
	return new Html(out);
}

/** Trusted markup only (constants of this code). */
export const raw = (s: string) => new Html(s);

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f7f9}
a{color:#0b57d0}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:6px;z-index:2}
header{background:#1d2433;color:#fff;display:flex;align-items:center;gap:24px;padding:0 24px;height:52px}
header .brand{font-weight:700;font-size:17px;letter-spacing:.2px;display:flex;align-items:center;gap:8px}
header .badge{font-weight:500;font-size:11px;letter-spacing:0;padding:1px 7px;border-radius:9px;background:#f2c94c;color:#3b2f00}
header nav{display:flex;gap:4px;flex:1}
header nav a{color:#d8dee9;text-decoration:none;padding:6px 10px;border-radius:6px}
header nav a[aria-current=page]{background:#3a4560;color:#fff}
header form{margin:0}
main{max-width:1180px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:22px;margin:4px 0 16px}
h2{font-size:17px;margin:24px 0 10px}
.crumbs{color:#57606a;font-size:13px;margin-bottom:4px}
.crumbs a{color:#57606a}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:12px}
.tiles a.card{display:block;text-decoration:none;color:inherit;margin:0}
.tiles a.card:hover{border-color:#1f6feb}
.tiles h2{margin:0 0 6px;color:#0b57d0}
.copyrow{display:flex;gap:8px;align-items:center;margin:0 0 12px}
.copyrow input{flex:1;max-width:560px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
iframe.mail{width:100%;height:480px;border:1px solid #d0d7de;border-radius:6px;background:#fff}
pre.mail{white-space:pre-wrap;max-height:none;font-size:13.5px}
@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important}}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d0d7de;border-radius:8px;overflow:hidden}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #eaeef2;vertical-align:top;font-size:14px}
th{background:#f0f2f5;font-weight:600}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:10px;overflow:auto;max-height:320px;margin:6px 0}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px;margin:12px 0}
.row{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-end}
.field{display:flex;flex-direction:column;gap:4px;margin:0 0 12px}
.field label,.legend{font-weight:600;font-size:13px}
fieldset{border:0;padding:0;margin:0 0 12px}
input[type=text],input[type=url],input[type=email],input[type=password],input[type=date],input[type=datetime-local],input[type=search],select{font:inherit;padding:6px 8px;border:1px solid #afb8c1;border-radius:6px;min-width:200px;background:#fff}
input[aria-invalid=true]{border-color:#cf222e}
button,.button{font:inherit;padding:6px 14px;border-radius:6px;border:1px solid #afb8c1;background:#f6f8fa;color:#1f2328;cursor:pointer;text-decoration:none;display:inline-block}
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}
button.danger,.button.danger{background:#cf222e;border-color:#cf222e;color:#fff}
header button{background:transparent;color:#d8dee9;border-color:#56607a}
:focus-visible{outline:3px solid #fb8c00;outline-offset:2px}
.error{color:#cf222e;font-size:13px;margin:0}
.notice{border-left:4px solid #1f6feb;background:#eef4ff;padding:10px 14px;border-radius:6px;margin:12px 0}
.notice.bad{border-color:#cf222e;background:#fff0f0}
.muted{color:#57606a}
.pill{display:inline-block;padding:1px 8px;border-radius:10px;background:#eaeef2;font-size:12px}
.pill.ok{background:#dafbe1;color:#116329}.pill.bad{background:#ffebe9;color:#a40e26}.pill.wait{background:#fff8c5;color:#7d4e00}
.pager{display:flex;gap:12px;align-items:center;margin:12px 0}
caption{text-align:left;padding:6px 10px;color:#57606a}
.nowrap{white-space:nowrap}
.row.between{justify-content:space-between;align-items:center}
form.inline{display:inline}
button{white-space:nowrap}
form.bar{margin:0 0 10px}
.card>h2:first-child,.notice>h2:first-child{margin-top:0}
.actions{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px}
.actions .card{margin:0}
.login{max-width:380px;margin:80px auto}
footer{max-width:1180px;margin:0 auto;padding:0 24px 24px;font-size:13px;color:#57606a}
`;
export const CSS_HASH = `'sha256-${crypto.createHash('sha256').update(CSS).digest('base64')}'`;

/** Copy buttons (`data-copy="<input id>"`) and reveal buttons (`data-reveal="<password input id>"`). */
const SCRIPT = `document.addEventListener('click',function(e){var b=e.target.closest&&e.target.closest('button[data-copy],button[data-reveal]');if(!b)return;var t=document.getElementById(b.getAttribute('data-copy')||b.getAttribute('data-reveal'));if(!t)return;if(b.hasAttribute('data-reveal')){var show=t.type==='password';t.type=show?'text':'password';b.textContent=show?'Hide':'Reveal';b.setAttribute('aria-label',(show?'Hide':'Reveal')+b.getAttribute('aria-label').replace(/^\\S+/,''));b.setAttribute('aria-pressed',String(show));return}var done=function(){b.textContent='Copied';setTimeout(function(){b.textContent='Copy'},1500)};var old=function(){var type=t.type;t.type='text';t.select();document.execCommand('copy');t.type=type;done()};if(navigator.clipboard)navigator.clipboard.writeText(t.value).then(done,old);else old()});`;
export const SCRIPT_HASH = `'sha256-${crypto.createHash('sha256').update(SCRIPT).digest('base64')}'`;

/** Built outside the html templates, which Prettier formats: the CSP hashes cover these tags' exact text. */
const STYLE_TAG = raw(`<style>${CSS}</style>`);
const SCRIPT_TAG = raw(`<script>${SCRIPT}</script>`);

export type Section = 'appointments' | 'deliveries' | 'mailbox' | 'settings';

/** Breadcrumbs: each ancestor a link, the current page last. */
export function crumbs(trail: Array<[label: string, href: string]>, current: string): Html {
	return html`<nav class="crumbs" aria-label="Breadcrumb">
		${trail.map(([label, href]) => html`<a href="${href}">${label}</a> › `)}<span
			aria-current="page"
			>${current}</span
		>
	</nav>`;
}

export interface Page {
	title: string;
	section?: Section;
	csrf?: string;
	body: Html;
}

export function layout(p: Page): string {
	const nav = (section: Section, href: string, label: string) =>
		html`<a href="${href}" ${p.section === section ? raw(' aria-current="page"') : ''}
			>${label}</a
		>`;
	const header = p.csrf
		? html`<header>
				<span class="brand">${PRODUCT} <span class="badge">local sandbox</span></span>
				<nav aria-label="Main">
					${nav('appointments', '/dashboard/appointments/', 'Appointments')}${nav(
						'deliveries',
						'/dashboard/deliveries/',
						'Deliveries',
					)}${nav('mailbox', '/dashboard/mailbox/', 'Mailbox')}${nav(
						'settings',
						'/dashboard/settings/',
						'Settings',
					)}
				</nav>
				<form method="post" action="/dashboard/logout">
					<input type="hidden" name="_csrf" value="${p.csrf}" /><button type="submit">
						Sign out
					</button>
				</form>
			</header>`
		: '';
	return html`<!doctype html>
		<html lang="en">
			<head>
				<meta charset="utf-8" />
				<meta name="viewport" content="width=device-width, initial-scale=1" />
				<title>${p.title} · ${PRODUCT}</title>
				${STYLE_TAG}
			</head>
			<body>
				<a class="skip" href="#main">Skip to content</a>${header}
				<main id="main">${p.body}</main>
				<footer>
					<strong>${PRODUCT}</strong> is the sandbox's stand-in name for the appointment scheduling
					service your n8n nodes talk to: its API, webhooks, dashboard and e-mails, all running on
					this machine.
				</footer>
				${p.csrf ? SCRIPT_TAG : ''}
			</body>
		</html>`.text;
}

/** An input with its label and the errors of its field next to it (announced with aria-describedby). */
export function field(o: {
	name: string;
	label: string;
	value?: string;
	type?: string;
	errors?: string[];
	required?: boolean;
	hint?: string;
	attrs?: string;
}): Html {
	const id = `f-${o.name.replace(/[^\w-]/g, '-')}`;
	const errs = o.errors ?? [];
	const described = [o.hint ? `${id}-hint` : '', errs.length ? `${id}-error` : '']
		.filter(Boolean)
		.join(' ');
	return html`<div class="field">
		<label for="${id}">${o.label}</label>
		<input
			id="${id}"
			name="${o.name}"
			type="${o.type ?? 'text'}"
			value="${o.value ?? ''}"
			${o.required ? raw(' required') : ''}${errs.length
				? raw(' aria-invalid="true"')
				: ''}${described ? html` aria-describedby="${described}"` : ''}${o.attrs
				? raw(` ${o.attrs}`)
				: ''}
		/>
		${o.hint ? html`<span class="muted" id="${id}-hint">${o.hint}</span>` : ''}${errs.length
			? html`<p class="error" id="${id}-error">${errs.join(' ')}</p>`
			: ''}
	</div>`;
}

export function select(o: {
	name: string;
	label: string;
	options: Array<[string, string]>;
	value?: string;
}): Html {
	const id = `f-${o.name.replace(/[^\w-]/g, '-')}`;
	return html`<div class="field">
		<label for="${id}">${o.label}</label
		><select id="${id}" name="${o.name}">
			${o.options.map(
				([v, l]) =>
					html`<option value="${v}" ${v === (o.value ?? '') ? raw(' selected') : ''}>${l}</option>`,
			)}
		</select>
	</div>`;
}

export const csrfInput = (token: string) =>
	html`<input type="hidden" name="_csrf" value="${token}" />`;

export const pretty = (jsonText: string): string => {
	try {
		return JSON.stringify(JSON.parse(jsonText), null, 2);
	} catch {
		return jsonText;
	}
};
