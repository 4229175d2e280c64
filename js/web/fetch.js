// fetch, Request, Response, Headers: not implemented yet.
export async function fetch(input) {
  const url = typeof input === "string" ? input : input?.url ?? String(input);
  throw new TypeError(`fetch(${JSON.stringify(url)}) failed: fetch is not supported by the Paseo plugin host yet`);
}
