/**
 * A response object with the parts of express.Response a node may use (writeHead/end/status/json/send), captured
 * for the trigger harness (triggerReceiver.ts). Its events follow Node's http.ServerResponse, which n8n hands the
 * node: end() emits 'finish' and then 'close'; lost() is the connection closing first (the service gave up
 * waiting): 'close' at once, and an end() after it emits nothing, its answer going nowhere. Given the real
 * ServerResponse of the harness's https receiver (`live`), its `closed`, `destroyed` and `socket` are Node's own:
 * what a node reads of a connection the client destroyed.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

export class CapturingResponse extends EventEmitter {
	statusCode = 200;
	headers: Record<string, string> = {};
	chunks: string[] = [];
	finished = false;
	writableFinished = false;
	headersSent = false;
	private isClosed = false;
	private done!: () => void;
	readonly ended = new Promise<void>((resolve) => (this.done = resolve));
	constructor(private readonly live?: ServerResponse) {
		super();
	}
	get closed(): boolean {
		return this.live?.closed ?? this.isClosed;
	}
	get destroyed(): boolean {
		return this.live?.destroyed ?? false;
	}
	get socket(): ServerResponse['socket'] {
		return this.live?.socket ?? null;
	}
	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = String(value);
		return this;
	}
	getHeader(name: string): string | undefined {
		return this.headers[name.toLowerCase()];
	}
	writeHead(status: number, headers?: Record<string, string>): this {
		this.statusCode = status;
		for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
		this.headersSent = true;
		return this;
	}
	status(code: number): this {
		this.statusCode = code;
		return this;
	}
	write(chunk: unknown): boolean {
		this.headersSent = true;
		this.chunks.push(String(chunk));
		return true;
	}
	end(chunk?: unknown): this {
		if (chunk !== undefined) this.chunks.push(String(chunk));
		this.headersSent = true;
		this.finished = true;
		this.done();
		if (this.isClosed || this.destroyed) return this;
		this.writableFinished = true;
		this.emit('finish');
		this.close();
		return this;
	}
	lost(): void {
		if (!this.writableFinished) this.close();
	}
	private close(): void {
		if (this.isClosed) return;
		this.isClosed = true;
		process.nextTick(() => this.emit('close'));
	}
	json(value: unknown): this {
		this.setHeader('content-type', 'application/json');
		return this.end(JSON.stringify(value));
	}
	send(value: unknown): this {
		return typeof value === 'object' && value !== null ? this.json(value) : this.end(value);
	}
	bodyValue(): unknown {
		const text = this.chunks.join('');
		if (text === '') return undefined;
		try {
			return JSON.parse(text);
		} catch {
			return text;
		}
	}
}
