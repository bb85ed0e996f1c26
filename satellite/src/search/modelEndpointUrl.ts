/**
 * The URL of one operation of an OpenAI-compatible API from the base an operator configured: `/embeddings`
 * or `/rerank` is added to `http://host:11434/v1`, and kept when the URL already ends with it.
 */
export function modelEndpointUrl(base: string, operation: 'embeddings' | 'rerank'): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(`/${operation}`)) url.pathname = `${path}/${operation}`;
  return url.href;
}
