/**
 * Token count of a tool as a client's model would see it in a tools/list result. A documented
 * estimate, not a tokenizer: about four characters per token for English text and JSON, the ratio
 * OpenAI and Anthropic both give for their tokenizers. Good enough for the savings figures the
 * backend shows; it over-counts dense JSON a little, which keeps the savings figures conservative.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The estimate for one tool: its name, description and input schema as they travel in tools/list. */
export function estimateToolTokens(tool: {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
}): number {
  return estimateTokens(
    JSON.stringify({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema }),
  );
}
