/** This package's version, sent in `User-Agent`; test/client/package.test.ts keeps it equal to package.json's. */
export const VERSION = "0.1.0";
