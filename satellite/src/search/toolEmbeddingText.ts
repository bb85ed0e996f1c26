import type { SearchableTool } from './searchableTool.ts';

/** The longest text embedded per tool: descriptions past it add cost, not meaning. */
const maxCharacters = 2000;

/**
 * What is embedded of a tool: its name in words and its description, the parts a request's meaning is
 * compared with. The server is left out: its name says little of meaning and the word ranking reads it.
 */
export function toolEmbeddingText(tool: SearchableTool): string {
  const name = tool.name.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
  return `${name}: ${tool.description}`.slice(0, maxCharacters);
}
