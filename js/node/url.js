// `node:url`: WHATWG URL plus Node's file URL helpers.
import { URL, URLSearchParams } from "paseo:internal/web/url";
import { resolve } from "node:path";

export { URL, URLSearchParams };

export function fileURLToPath(url) {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "file:") {
    const err = new TypeError("The URL must be of scheme file");
    err.code = "ERR_INVALID_URL_SCHEME";
    throw err;
  }
  if (u.hostname !== "") {
    const err = new TypeError(`File URL host must be "localhost" or empty on linux`);
    err.code = "ERR_INVALID_FILE_URL_HOST";
    throw err;
  }
  if (/%2f/i.test(u.pathname)) {
    const err = new TypeError("File URL path must not include encoded / characters");
    err.code = "ERR_INVALID_FILE_URL_PATH";
    throw err;
  }
  return decodeURIComponent(u.pathname);
}

export function pathToFileURL(path) {
  let p = resolve(path);
  if (path.endsWith("/") && !p.endsWith("/")) p += "/";
  const encoded = p.replace(/%/g, "%25").replace(/\\/g, "%5C").replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/\t/g, "%09").replace(/#/g, "%23").replace(/\?/g, "%3F");
  return new URL(`file://${encoded}`);
}

export function format(urlObject) {
  if (urlObject instanceof URL) return urlObject.href;
  const { protocol = "", host, hostname = "", port, pathname = "", search = "", hash = "" } = urlObject ?? {};
  const slashes = protocol && !protocol.endsWith(":") ? "://" : protocol ? "//" : "";
  return `${protocol}${slashes}${host ?? hostname + (port ? `:${port}` : "")}${pathname}${search}${hash}`;
}

export function parse(input) {
  try {
    const u = new URL(input);
    return { protocol: u.protocol, host: u.host, hostname: u.hostname, port: u.port || null, pathname: u.pathname, search: u.search || null, query: u.search.slice(1) || null, hash: u.hash || null, href: u.href };
  } catch {
    return { protocol: null, host: null, hostname: null, port: null, pathname: input, search: null, query: null, hash: null, href: input };
  }
}

export default { URL, URLSearchParams, fileURLToPath, pathToFileURL, format, parse };
