// `node:dns`: `lookup` through the system resolver (getaddrinfo). The DNS-protocol queries
// (resolve*, reverse, lookupService) are not supported and fail naming the member.
import { unsupported } from "paseo:internal/core";
import promises, { getDefaultResultOrder, setDefaultResultOrder } from "node:dns/promises";

export { getDefaultResultOrder, setDefaultResultOrder, promises };

export const ADDRCONFIG = 1024, V4MAPPED = 2048, ALL = 256;
export const NODATA = "ENODATA", FORMERR = "EFORMERR", SERVFAIL = "ESERVFAIL", NOTFOUND = "ENOTFOUND",
  NOTIMP = "ENOTIMP", REFUSED = "EREFUSED", BADQUERY = "EBADQUERY", BADNAME = "EBADNAME",
  BADFAMILY = "EBADFAMILY", BADRESP = "EBADRESP", CONNREFUSED = "ECONNREFUSED", TIMEOUT = "ETIMEOUT",
  EOF = "EOF", FILE = "EFILE", NOMEM = "ENOMEM", DESTRUCTION = "EDESTRUCTION", BADSTR = "EBADSTR",
  BADFLAGS = "EBADFLAGS", NONAME = "ENONAME", BADHINTS = "EBADHINTS", NOTINITIALIZED = "ENOTINITIALIZED",
  LOADIPHLPAPI = "ELOADIPHLPAPI", ADDRGETNETWORKPARAMS = "EADDRGETNETWORKPARAMS", CANCELLED = "ECANCELLED";

/** `lookup(hostname[, options], callback)`: `callback(err, address, family)`, or `(err, addresses)` with `all`. */
export function lookup(hostname, options, callback) {
  if (typeof options === "function") { callback = options; options = undefined; }
  if (typeof callback !== "function") {
    const err = new TypeError(`The "callback" argument must be of type function. Received ${callback === null ? "null" : typeof callback}`);
    err.code = "ERR_INVALID_ARG_TYPE";
    throw err;
  }
  const all = typeof options === "object" && options !== null && Boolean(options.all);
  promises.lookup(hostname, options).then(
    (found) => (all ? callback(null, found) : callback(null, found.address, found.family)),
    (err) => callback(err),
  );
  return {};
}

const RESOLVE = ["resolve", "resolve4", "resolve6", "resolveAny", "resolveCaa", "resolveCname", "resolveMx",
  "resolveNaptr", "resolveNs", "resolvePtr", "resolveSoa", "resolveSrv", "resolveTlsa", "resolveTxt", "reverse",
  "lookupService", "getServers", "setServers"];
const resolveMembers = (prefix) => Object.fromEntries(RESOLVE.map((name) => [name, unsupported(`${prefix}.${name}`)]));

const members = resolveMembers("node:dns");
export const {
  resolve, resolve4, resolve6, resolveAny, resolveCaa, resolveCname, resolveMx, resolveNaptr, resolveNs,
  resolvePtr, resolveSoa, resolveSrv, resolveTlsa, resolveTxt, reverse, lookupService, getServers, setServers,
} = members;

export class Resolver {
  constructor() { Object.assign(this, resolveMembers("node:dns.Resolver")); }
  cancel() {}
  setLocalAddress() {}
}

export default {
  lookup, promises, getDefaultResultOrder, setDefaultResultOrder, Resolver, ADDRCONFIG, V4MAPPED, ALL,
  NODATA, FORMERR, SERVFAIL, NOTFOUND, NOTIMP, REFUSED, BADQUERY, BADNAME, BADFAMILY, BADRESP,
  CONNREFUSED, TIMEOUT, EOF, FILE, NOMEM, DESTRUCTION, BADSTR, BADFLAGS, NONAME, BADHINTS,
  NOTINITIALIZED, LOADIPHLPAPI, ADDRGETNETWORKPARAMS, CANCELLED, ...members,
};
