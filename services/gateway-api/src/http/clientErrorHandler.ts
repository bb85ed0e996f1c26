import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '@orbital/errors';
import type { ConnectionError } from 'fastify';
import type { ErrorEnvelope } from './errorHandler.ts';

/** Longest request target accepted; beyond it a request is 414 (Node refuses the whole head past 16 KiB). */
export const maxUrlLength = 8192;

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a head over its size limit, a malformed
 * request line) are answered here, in the platform's error envelope like every other error: 414 when
 * the request line alone is what overflowed, 431 when the headers did, 400 otherwise.
 */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let appError: AppError;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // Node hands the bytes it had read as a Buffer (Fastify's type says otherwise).
    const raw: unknown = error.rawPacket;
    const head = Buffer.isBuffer(raw) ? raw.subarray(0, maxUrlLength + 64).toString('latin1') : '';
    const requestLine = head.split('\r\n', 1)[0] ?? '';
    const lineOverflowed = head !== '' && (!head.includes('\r\n') || requestLine.length > maxUrlLength);
    appError = lineOverflowed ? new AppError('uri_too_long') : new AppError('headers_too_large');
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  } else {
    appError = new AppError('validation_failed', 'The request is not valid HTTP');
  }
  const body: ErrorEnvelope = { success: false, error: appError.toBody() };
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy();
}
