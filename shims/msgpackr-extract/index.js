// msgpackr requires this inside try/catch and falls back to its JavaScript decoder.
throw new Error("msgpackr-extract is replaced by a shim: msgpackr uses its JavaScript path");
