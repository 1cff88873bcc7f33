/**
 * Why an operator holds admission (`harmflow admission hold REASON`, `POST /api/admission/hold`), as
 * a single service and a cluster's hold both take it: one line of text, trimmed, 1–500 characters.
 */
import { z } from 'zod';

export const HoldReason = z.string().trim().min(1).max(500);
