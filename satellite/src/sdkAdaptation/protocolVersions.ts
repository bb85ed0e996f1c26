import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The SDK release every module of this folder was written against (@modelcontextprotocol/server and
 * /client). Each adaptation here follows behaviour or internals of that release; a test fails when the
 * installed SDK is another one, so an upgrade starts by reviewing this folder (see README.md here).
 */
export const adaptedSdkVersion = '2.4.0';

/**
 * The 2026-07-28 revision, the only one of the modern era the SDK serves. The SDK keeps its modern
 * list (`SUPPORTED_MODERN_PROTOCOL_VERSIONS`) internal, unlike the legacy one, so it is named here once.
 */
export const modernProtocolVersion = '2026-07-28';

/** The 2025 (and 2024) revisions, exactly as the SDK accepts them from a client or a server. */
export const legacyProtocolVersions: readonly string[] = [...SUPPORTED_PROTOCOL_VERSIONS];

/** As a set, for the per-request header checks. */
export const legacyProtocolVersionSet: ReadonlySet<string> = new Set(legacyProtocolVersions);

/**
 * The revisions the satellite speaks to upstream servers, in order of preference: 2026-07-28 through
 * `server/discover`, then the legacy `initialize` handshake offering the newest 2025 revision and
 * accepting whichever the SDK accepts when the server counter-offers.
 */
export const upstreamProtocolVersions: readonly string[] = [modernProtocolVersion, ...legacyProtocolVersions];
