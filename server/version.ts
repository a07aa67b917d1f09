/** The version of the HTTP API (contract section 9), not of the package. */
export const API_VERSION = "0.1.0";
export const API_PREFIX = "/api/v1";
