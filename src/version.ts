/** Our own version: part of every template fingerprint, so an upgrade never reuses a template built by an older release. */
export const VERSION = '0.1.0';
