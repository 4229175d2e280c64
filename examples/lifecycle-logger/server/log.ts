/** One JSON line per hook; `env` values are replaced so secrets never reach the log. */
export function logHook(name: string, payload: unknown): void {
  const line = JSON.stringify({ at: new Date().toISOString(), hook: name, payload }, (key, value) => {
    if (key === "env" && value && typeof value === "object") {
      return Object.fromEntries(Object.keys(value).map((k) => [k, "[redacted]"]));
    }
    return value;
  });
  console.log(line);
}
