/** The back office's reply to a contact message (mailed to its sender): at least two characters besides spaces, sent as typed. */
import { z } from 'zod';

export const REPLY_TOO_SHORT = 'La réponse doit contenir au moins 2 caractères';

export const replySchema = z.object({
  body: z.string().refine((body) => body.trim().length >= 2, REPLY_TOO_SHORT),
});

export type ReplyValues = z.infer<typeof replySchema>;
