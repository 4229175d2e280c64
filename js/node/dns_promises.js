// `node:dns/promises`: `lookup` through the system resolver (getaddrinfo, so /etc/hosts and
// `localhost` work). The DNS-protocol queries (resolve*, reverse) are not supported.
import { ops, unsupported } from "paseo:internal/core";

const IPv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;
const ipFamily = (s) => (IPv4.test(s) ? 4 : /^[0-9a-fA-F:.]*:[0-9a-fA-F:.]*(?:%.+)?$/.test(s) ? 6 : 0);

let defaultOrder = "verbatim";
export const getDefaultResultOrder = () => defaultOrder;
export function setDefaultResultOrder(order) {
  if (!["verbatim", "ipv4first", "ipv6first"].includes(order)) {
    const err = new TypeError(`The argument 'dnsOrder' must be one of: 'verbatim', 'ipv4first', 'ipv6first'. Received '${order}'`);
    err.code = "ERR_INVALID_ARG_VALUE";
    throw err;
  }
  defaultOrder = order;
}

function invalid(Ctor, code, message) {
  const err = new Ctor(message);
  err.code = code;
  return err;
}

function lookupError(message, hostname) {
  const err = new Error(message);
  const code = /^getaddrinfo (\w+)/.exec(message)?.[1] ?? "ENOTFOUND";
  Object.assign(err, { errno: code === "EAI_AGAIN" ? -3001 : -3008, code, syscall: "getaddrinfo", hostname });
  return err;
}

/** Normalises `lookup`'s options (a family number or an object) to `{ family, all, order }`. */
function lookupOptions(options) {
  const o = typeof options === "number" || typeof options === "string" ? { family: options } : options ?? {};
  let family = o.family ?? 0;
  if (family === "IPv4") family = 4;
  else if (family === "IPv6") family = 6;
  if (![0, 4, 6].includes(family)) {
    throw invalid(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.family' must be one of: 0, 4, 6. Received ${typeof family === "string" ? `'${family}'` : family}`);
  }
  const order = o.order ?? (o.verbatim === true ? "verbatim" : o.verbatim === false ? "ipv4first" : defaultOrder);
  return { family, all: Boolean(o.all), order };
}

/** Every address of `hostname` as `{ address, family }`, filtered and ordered as asked. */
async function lookupAll(hostname, { family, order }) {
  const literal = ipFamily(hostname);
  if (literal) return [{ address: hostname, family: literal }];
  let list;
  try {
    list = (await ops.op_dns_lookup(hostname)).map(([address, fam]) => ({ address, family: fam }));
  } catch (e) {
    throw lookupError(e.message, hostname);
  }
  if (family) list = list.filter((a) => a.family === family);
  if (order === "ipv4first") list.sort((a, b) => a.family - b.family);
  else if (order === "ipv6first") list.sort((a, b) => b.family - a.family);
  if (!list.length) throw lookupError(`getaddrinfo ENOTFOUND ${hostname}`, hostname);
  return list;
}

/** Resolves to `{ address, family }` (an array of them with `all`); bad arguments throw at once, as in Node. */
export function lookup(hostname, options) {
  if (hostname && typeof hostname !== "string") {
    throw invalid(TypeError, "ERR_INVALID_ARG_TYPE", `The "hostname" argument must be of type string. Received ${typeof hostname}`);
  }
  const opts = lookupOptions(options);
  if (!hostname) return Promise.resolve(opts.all ? [] : { address: null, family: opts.family === 6 ? 6 : 4 });
  return lookupAll(hostname, opts).then((list) => (opts.all ? list : list[0]));
}

const RESOLVE = ["resolve", "resolve4", "resolve6", "resolveAny", "resolveCaa", "resolveCname", "resolveMx",
  "resolveNaptr", "resolveNs", "resolvePtr", "resolveSoa", "resolveSrv", "resolveTlsa", "resolveTxt", "reverse"];

/** The DNS-protocol members, each failing with its own name. */
function resolveMembers(prefix) {
  return Object.fromEntries([
    ...RESOLVE.map((name) => [name, unsupported(`${prefix}.${name}`)]),
    ["lookupService", unsupported(`${prefix}.lookupService`)],
    ["getServers", unsupported(`${prefix}.getServers`)],
    ["setServers", unsupported(`${prefix}.setServers`)],
  ]);
}

const members = resolveMembers("node:dns/promises");
export const {
  resolve, resolve4, resolve6, resolveAny, resolveCaa, resolveCname, resolveMx, resolveNaptr, resolveNs,
  resolvePtr, resolveSoa, resolveSrv, resolveTlsa, resolveTxt, reverse, lookupService, getServers, setServers,
} = members;

export class Resolver {
  constructor() { Object.assign(this, resolveMembers("node:dns/promises.Resolver")); }
  cancel() {}
  setLocalAddress() {}
}

export default {
  lookup, getDefaultResultOrder, setDefaultResultOrder, Resolver, ...members,
};
