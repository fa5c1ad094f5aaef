/**
 * A response object with the parts of express.Response a node may use (writeHead/end/status/json/send), captured
 * for the trigger harness (triggerReceiver.ts): `ended` resolves and 'finish' is emitted when it is ended, as
 * n8n's response emits it once the answer is sent.
 */
import { EventEmitter } from 'node:events';

export class CapturingResponse extends EventEmitter {
	statusCode = 200;
	headers: Record<string, string> = {};
	chunks: string[] = [];
	finished = false;
	headersSent = false;
	private done!: () => void;
	readonly ended = new Promise<void>((resolve) => (this.done = resolve));
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
		this.emit('finish');
		return this;
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
