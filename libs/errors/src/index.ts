export { AppError, type AppErrorOptions, type ErrorBody, isAppError, toAppError } from './AppError.ts';
export { type ErrorCode, errorCodeList, errorCodes, httpStatusFor, isErrorCode } from './errorCodes.ts';
