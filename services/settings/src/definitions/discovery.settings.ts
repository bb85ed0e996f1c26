import type { DefinitionModule } from './settingDefinition.ts';

const endpointNote = 'an OpenAI-compatible API base, such as http://ollama:11434/v1; empty turns it off';

/**
 * Discovery's model of meaning, sent to every satellite with its configuration. Keys travel only to
 * global satellites: a team satellite's operator gives their own (SATELLITE_EMBEDDINGS_API_KEY).
 */
export const settingsDefinition: DefinitionModule = {
  group: {
    id: 'discovery',
    name: 'Tool discovery',
    description:
      'A model of meaning for discover_mcp_tools: embeddings fused with the word ranking, and an optional reranker',
    icon: 'search',
    sort_order: 4,
  },
  settings: [
    {
      key: 'discovery.embeddings_url',
      name: 'Embeddings endpoint',
      defaultValue: '',
      type: 'string',
      description: `Where satellites embed requests and tool descriptions: ${endpointNote}`,
      encrypted: false,
      required: false,
      format: 'url',
      readBy: ['satellite-registry'],
    },
    {
      key: 'discovery.embeddings_model',
      name: 'Embeddings model',
      defaultValue: '',
      type: 'string',
      description: 'The model name the embeddings endpoint expects (for example nomic-embed-text or bge-small-en-v1.5)',
      encrypted: false,
      required: false,
      readBy: ['satellite-registry'],
    },
    {
      key: 'discovery.embeddings_api_key',
      name: 'Embeddings API key',
      defaultValue: '',
      type: 'string',
      description: 'Sent as a bearer token to the embeddings endpoint; empty for an endpoint that needs none',
      encrypted: true,
      required: false,
      readBy: ['satellite-registry'],
    },
    {
      key: 'discovery.reranker_url',
      name: 'Reranker endpoint',
      defaultValue: '',
      type: 'string',
      description: `Where satellites rerank the first 20 results (POST /rerank): ${endpointNote}`,
      encrypted: false,
      required: false,
      format: 'url',
      readBy: ['satellite-registry'],
    },
    {
      key: 'discovery.reranker_model',
      name: 'Reranker model',
      defaultValue: '',
      type: 'string',
      description: 'The model name the rerank endpoint expects',
      encrypted: false,
      required: false,
      readBy: ['satellite-registry'],
    },
    {
      key: 'discovery.reranker_api_key',
      name: 'Reranker API key',
      defaultValue: '',
      type: 'string',
      description: 'Sent as a bearer token to the rerank endpoint; empty for an endpoint that needs none',
      encrypted: true,
      required: false,
      readBy: ['satellite-registry'],
    },
    {
      key: 'discovery.model_timeout_ms',
      name: 'Model time limit (ms)',
      defaultValue: '300',
      type: 'number',
      description:
        'The most one discovery call waits for the endpoints, both together, before answering from the word ranking (10 to 10000)',
      encrypted: false,
      required: false,
      readBy: ['satellite-registry'],
    },
  ],
};
