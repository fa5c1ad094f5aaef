/** The delivery engine's ready queue, and the shuffle of --shuffle-delivery. */
import crypto from 'node:crypto';

/** A FIFO whose shift() is O(1): the read position moves, the array is compacted now and then. */
export class Queue<T> {
	private items: T[] = [];
	private head = 0;
	get length() {
		return this.items.length - this.head;
	}
	push(x: T) {
		this.items.push(x);
	}
	shift(): T | undefined {
		if (this.head >= this.items.length) return undefined;
		const x = this.items[this.head];
		this.items[this.head++] = undefined as unknown as T;
		if (this.head > 1024 && this.head * 2 > this.items.length) {
			this.items = this.items.slice(this.head);
			this.head = 0;
		}
		return x;
	}
	drain(): T[] {
		const out = this.items.slice(this.head);
		this.items = [];
		this.head = 0;
		return out;
	}
}

/** Fisher-Yates, in place. */
export function shuffle<T>(list: T[]): T[] {
	for (let i = list.length - 1; i > 0; i--) {
		const j = crypto.randomInt(i + 1);
		[list[i], list[j]] = [list[j], list[i]];
	}
	return list;
}
