/** zod schemas of the admin bodies. */
import { z } from 'zod/v4';

import { STATUSES, UUID_RE } from './vocabulary';

const uuidString = () => z.string().regex(UUID_RE, 'Expected a UUID.');

export const adminCreateSchema = z
	.object({
		appointment_key: uuidString().optional(),
		search_code: z.string().min(1).max(64).optional(),
		status: z.enum(STATUSES).optional(),
		start_date: z.string().optional(),
		calendar: z
			.object({ calendar_key: uuidString(), name: z.string().min(1).optional() })
			.strict()
			.optional(),
		person: z
			.object({ full_name: z.string().min(1).optional(), email: z.string().min(3).optional() })
			.strict()
			.optional(),
		client_key: uuidString().optional(),
		person_key: uuidString().optional(),
		phone: z.string().optional(),
		identification_code: z.string().optional(),
		external_id: z.string().nullable().optional(),
		service_keys: z.array(uuidString()).optional(),
		tag_keys: z.array(uuidString()).optional(),
		owner_user: z.string().optional(),
		created_at: z.string().optional(),
		is_cancelled: z.boolean().optional(),
	})
	.strict();

export type AdminCreate = z.infer<typeof adminCreateSchema>;

export const resetSchema = z
	.object({
		seed: z.number().int().min(0).max(1_000_000).optional(),
		seedValue: z.number().int().optional(),
		now: z.string().optional(),
	})
	.strict();
