import { z } from 'zod';
import { slug } from '../satellite/serverConfiguration.ts';

/** Body of POST /api/mcp/servers/import: the document, and the slug to give it when its name's last part does not fit. */
export const serverJsonImport = z.object({ server: z.unknown(), slug: slug.optional() }).strict();

/** Something each installation must provide, because the document leaves it to the user (an API key, a path). */
export const templateInput = z.object({
  kind: z.enum(['env', 'argument', 'header']),
  name: z.string(),
  description: z.string().nullable(),
  required: z.boolean(),
  secret: z.boolean(),
});
export type TemplateInput = z.infer<typeof templateInput>;
