import { describe, expect, it } from 'vitest';
import { discoverySettingsOf } from './discoverySettingsOf.ts';

describe('discoverySettingsOf', () => {
  const values = {
    'discovery.embeddings_url': 'http://ollama:11434/v1',
    'discovery.embeddings_model': 'nomic-embed-text',
    'discovery.embeddings_api_key': 'emb-secret',
    'discovery.reranker_url': '',
    'discovery.reranker_model': '',
    'discovery.reranker_api_key': '',
    'discovery.model_timeout_ms': '250',
  };

  it('carries an endpoint with its model, and its key only when asked', () => {
    expect(discoverySettingsOf(values, true)).toEqual({
      settings: {
        embeddings: { url: 'http://ollama:11434/v1', model: 'nomic-embed-text', api_key: 'emb-secret' },
        model_timeout_ms: 250,
      },
      dropped: [],
    });
    const withoutKeys = discoverySettingsOf(values, false);
    expect(withoutKeys.settings.embeddings).toEqual({ url: 'http://ollama:11434/v1', model: 'nomic-embed-text' });
    expect(JSON.stringify(withoutKeys)).not.toContain('emb-secret');
  });

  it('is empty when no endpoint is set (the defaults)', () => {
    expect(discoverySettingsOf({ 'discovery.embeddings_url': '', 'discovery.model_timeout_ms': '300' }, true)).toEqual({
      settings: { model_timeout_ms: 300 },
      dropped: [],
    });
    expect(discoverySettingsOf({}, true)).toEqual({ settings: {}, dropped: [] });
  });

  it('leaves out what does not fit and names it, keeping the rest', () => {
    const result = discoverySettingsOf(
      {
        ...values,
        'discovery.embeddings_model': '',
        'discovery.reranker_url': 'ftp://x/v1',
        'discovery.reranker_model': 'm',
        'discovery.model_timeout_ms': '99999',
      },
      true,
    );
    expect(result.settings).toEqual({});
    expect(result.dropped.sort()).toEqual([
      'discovery.embeddings_model',
      'discovery.model_timeout_ms',
      'discovery.reranker_url',
    ]);
  });
});
