// Compares js/node/url.js (the engine's node:url) with Node's own node:url: the legacy API
// (Url, parse, format, resolve, resolveObject), domainToASCII/domainToUnicode, format(URL,
// options) and urlToHttpOptions. Run: node js/node/test/check-url.mjs
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as nodeNS from 'node:url';

const nodeUrl = createRequire(import.meta.url)('node:url');

// url.js imports the engine's WHATWG URL from "paseo:internal/web/url"; swap in a module
// that hands out Node's globals, leave the node: imports to Node, and load it as a data: URL.
const dataUrl = (text) => `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;
const shim = 'export const URL = globalThis.URL; export const URLSearchParams = globalThis.URLSearchParams;';
const source = readFileSync(new URL('../url.js', import.meta.url), 'utf8')
  .replace('"paseo:internal/web/url"', JSON.stringify(dataUrl(shim)));
if (/["']paseo:/.test(source)) throw new Error('url.js imports another paseo: module; teach this script about it');
const mineNS = await import(dataUrl(source));
const mine = mineNS.default;

// Both implementations warn through process.emitWarning; record who warned what.
const warnings = { mine: [], node: [] };
let current = 'node';
process.emitWarning = (...args) => warnings[current].push(args.map(String));

let passed = 0, failed = 0;
function norm(v) {
  if (v === undefined) return { undefined: true };
  if (typeof v === 'number' && !Number.isFinite(v)) return { number: String(v) };
  if (typeof v === 'function') return { function: v.name };
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === 'object') {
    const proto = Object.getPrototypeOf(v);
    return { proto: proto === null ? null : proto.constructor?.name, entries: Object.entries(v).map(([k, x]) => [k, norm(x)]) };
  }
  return v;
}
function run(who, fn) {
  current = who;
  try {
    return { ok: norm(fn()) };
  } catch (e) {
    return { throws: e?.name, code: e?.code, message: e?.message, input: e?.input };
  } finally {
    current = 'node';
  }
}
function check(name, got, want) {
  const a = JSON.stringify(got), b = JSON.stringify(want);
  if (a === b) return passed++;
  failed++;
  if (failed <= 40) console.log(`FAIL ${name}\n  got:  ${a.slice(0, 600)}\n  want: ${b.slice(0, 600)}`);
}
// The same call against both; `f(lib)` gets the module's default export.
const both = (name, f) => check(name, run('mine', () => f(mine)), run('node', () => f(nodeUrl)));
const show = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
const label = (v) => (typeof v === 'symbol' ? 'symbol' : typeof v === 'bigint' ? `${v}n` : Object.prototype.toString.call(v) + (typeof v === 'object' || typeof v === 'function' ? '' : ` ${v}`));

// Deterministic PRNG so failures reproduce; URL_CHECK_SEED and URL_CHECK_SCALE widen the search.
let seed = Number(process.env.URL_CHECK_SEED ?? 20240611);
const SCALE = Number(process.env.URL_CHECK_SCALE ?? 1);
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pick = (a) => a[Math.floor(rand() * a.length)];

// ------------------------------------------------------------------ exports

check('default export keys', Object.keys(mine), Object.keys(nodeUrl));
check('named exports', Object.keys(nodeUrl).filter((k) => !(k in mineNS)), []);
check('Url.prototype names', Object.getOwnPropertyNames(mine.Url.prototype), Object.getOwnPropertyNames(nodeUrl.Url.prototype));
check('Url.prototype enumerable', Object.keys(mine.Url.prototype), Object.keys(nodeUrl.Url.prototype));
both('new Url()', (lib) => new lib.Url());
check('function lengths', ['Url', 'parse', 'resolve', 'resolveObject', 'format', 'domainToASCII', 'domainToUnicode', 'urlToHttpOptions']
  .map((k) => [k, mine[k].length]), ['Url', 'parse', 'resolve', 'resolveObject', 'format', 'domainToASCII',
  'domainToUnicode', 'urlToHttpOptions'].map((k) => [k, nodeUrl[k].length]));
check('Url.prototype method lengths', Object.keys(mine.Url.prototype).map((k) => [k, mine.Url.prototype[k].length]),
  Object.keys(nodeUrl.Url.prototype).map((k) => [k, nodeUrl.Url.prototype[k].length]));
check('node:url named exports present', ['Url', 'parse', 'format', 'resolve', 'resolveObject', 'domainToASCII',
  'domainToUnicode', 'urlToHttpOptions', 'fileURLToPath', 'pathToFileURL', 'URL', 'URLSearchParams']
  .filter((k) => typeof mineNS[k] !== typeof nodeNS[k]), []);

// ------------------------------------------------------------------ parse

const PARSE_CASES = [
  // everyday URLs
  'http://user:pass@host.com:8080/p/a/t/h?query=string#hash',
  'http://example.com', 'http://example.com/', 'https://example.com/path/to/file.html',
  'http://example.com:80/', 'http://example.com:/', 'http://example.com:65536/x', 'http://example.com:0/',
  'HTTP://EXAMPLE.COM/PATH?QUERY#HASH', 'HtTp://ExAmPlE.cOm/', 'https://www.google.com/search?q=node+js&hl=en',
  'http://localhost:3000/api/v1/users?id=1&id=2&name=', 'http://127.0.0.1:8080/x', 'http://0x7f.1/x',
  'ftp://ftp.example.org/pub/file.txt', 'gopher://gopher.example/1', 'ws://socket.example/chat', 'wss://s.example:443/',
  'file:///etc/passwd', 'file://localhost/etc/hosts', 'file:/etc/passwd', 'file:etc', 'FILE:///C:/x', 'file://',
  // no protocol, paths, simple-path fast path
  '', ' ', '/', '//', '///', '////x', '/foo', '/foo/bar?x=1&y=2', '/foo?', '/foo?#', '/?a=b', '?a=b', '#x', '?x#y',
  'foo', 'foo/bar', './foo', '../foo', 'a?b?c', '/a b', '/a\tb', '/a?b c', 'a.b', '/x@y', '//x@y', '//x@y/z',
  '//user@host/path', '//host/path', '//host', '//host:80/p?q#h', '/\\host/path', '\\\\host\\path', 'x:', ':x', ':',
  // protocols without slashes
  'mailto:user@example.com', 'mailto:a@b.com?subject=hi', 'MAILTO:USER@EXAMPLE.COM', 'mailto:foo@bar.com:80/x',
  'javascript:alert(1)', 'javascript:alert("x y")', 'JavaScript://%0Aalert(1)', 'javascript://x/y', 'javascript:',
  'xmpp:isaacschlueter@jabber.org', 'news:comp.lang.js', 'urn:isbn:0451450523', 'data:text/plain,hello world',
  'tel:+1-555-555', 'sip:user@host;transport=tcp', 'about:blank', 'blob:http://x/y', 'coap://[::1]/x',
  'svn+ssh://foo/bar', 'dash-test://foo/bar', 'dot.test://foo/bar', 'c:\\windows\\path', 'C:/x/y', 'a1+-.:/x',
  'http:x', 'http:/x', 'http:///x', 'https:x/y', 'HTTP:x', 'Http:x/y', 'ws:x', 'foo:x', 'foo:/x', 'foo://x/y',
  'http:', 'http:?x', 'http:#x', 'http://', 'http://?x', 'http://#x', 'http:///', 'http:////x',
  // auth
  'http://user@host/', 'http://user:@host/', 'http://:pass@host/', 'http://@host/', 'http://a@b@c/',
  'http://us%20er:p%40ss@host/', 'http://a b@host/', 'http://a"b@host/x', 'http://a;b@host/',
  'http://user:pass@[::1]:80/', 'http://x@y@z:1/?@#@', 'http://a%zz@host/', 'http://a%@host/', 'http://a@/x',
  'http://a@:80/x', 'http://@/x',
  // ports and bad hosts
  'http://host:123abc/', 'http://host:abc/', 'http://host:80:90/', 'http://a:b:c@d:e/', 'foo:bar:baz',
  'http://host:8080', 'http://host:8080?x', 'http://host:8080#x', 'http://host.com:/x', 'http://:80/x',
  'http://a b.com/', 'http://a"b.com/', "http://a'b.com/", 'http://a;b.com/', 'http://a<b>.com/', 'http://a^b/',
  'http://a`b/', 'http://a{b}/', 'http://a|b/', 'http://a%41.com/', 'http://a!b$c&d(e)f*g+h,i=j~k_/x',
  'http://a\x01b.com/x', 'http://a\x7fb/x', 'http://a\tb.com/x', 'http://a\nb.com/x', 'http://a\rb.com/x',
  'http://a\0b.com/x', 'http://\0b.com/x', 'http://a[b]/x', 'http://a]/x', 'http://[a/x',
  'http://' + 'a'.repeat(255) + '/x', 'http://' + 'a'.repeat(256) + '/x', 'http://' + 'a'.repeat(64) + '.com/x',
  'http://..', 'http://a..b/', 'http://.a./', 'http://-a-.com/', 'http://a_b.com/',
  // IPv6
  'http://[::1]/', 'http://[::1]:8080/x', 'http://[::1]', 'http://[::1]?x', 'http://[::1]#x', 'http://[FE80::1]/',
  'http://[2001:db8::7]/c=GB?objectClass?one', 'http://[::1 ]/', 'http://[::1]x/', 'http://[::1]:abc/',
  'http://[]/', 'http://[::1%25eth0]/', 'http://[<>]/', 'http://[a:b]:/', 'http://u@[::1]/',
  // IDN hosts
  'http://español.com/', 'http://ESPAÑOL.com/', 'http://xn--espaol-zwa.com/', 'http://XN--ESPAOL-ZWA.COM/',
  'http://中文.com/', 'http://xn--iñvalid.com/', 'http://xn--a.com/', 'http://xn--.com/', 'http://xn--abc-.com/',
  'http://ÉXAMPLE.com/', 'http://faß.de/', 'http://ＡＢＣ.com/', 'http://a。b.com/', 'http://a\u00adb.com/',
  'http://\u00ad/x', 'http://a\u200db.com/', 'http://\u0300a.com/', 'http://a\ufffd.com/', 'http://😀.com/',
  'http://a\u2028b.com/', 'http://a\u3000b.com/', 'http://a\u00a0b.com/', 'http://βόλος.gr/', 'http://Bücher.ch/x',
  'http://München.de:8080/Straße?ä=ö#ü', 'http://ab--cd€.com/', 'http://١٢٣.com/', 'http://אב.com/',
  'http://אa.com/', 'http://İstanbul.com/', 'http://ⓐ.com/', 'http://①.com/', 'http://xn--ls8h.la/',
  // whitespace and backslashes
  '  http://a.com/  ', '\t\nhttp://a.com/\r\n', '\u00a0http://a.com/\ufeff', '\x01http://a.com/\x02',
  'http://a.com\\b\\c?d\\e#f\\g', 'http:\\\\a.com\\b', '\\\\a.com\\b', 'http://a.com/x\\y#z\\w', ' /a b ',
  'http://a.com/ x', 'http:// a.com/', 'http://a.com/x y?z w#v u', '\u3000http://a.com/', 'http://a.com/\u2028',
  // escaping in path, query, hash
  'http://a.com/ü é?q=ä#ö', 'http://a.com/<script>', 'http://a.com/{x}|y^z`w', 'http://a.com/"q"\'s\'',
  'http://a.com/?"<>`{}|^\\', 'http://a.com/#"<>`{}|^\\ #', 'http://a.com/%20%zz', 'http://a.com/?a=%ZZ&b=%41',
  'javascript:alert("<>")', 'javascript:a b', 'http://a.com/p?q=1&q=2&r[]=x&s=a+b&t=%E2%82%AC',
  'http://a.com/?&&=&a==b', 'http://a.com/?constructor=x&__proto__=y', '/?a=1#?b=2', 'http://a.com/#?q',
  'http://x.com/path?that\'s#all, folks', 'http://a.com/?' + 'k=v&'.repeat(1100),
  'http://a.com/\ud800', 'http://a.com/?\ud800=\udc00',
  // node's own documentation and tests
  'http://nodejs.org/docs/latest/api/url.html#url_url_format_urlobj',
  'http://www.ExAmPlE.com/', 'http://user:pw@www.ExAmPlE.com/', 'http://x.y.COM/Y',
  'http://x.com/path?that\'s#all, folks', 'HTTP://X.COM/Y', 'http://x.y.com+a/b/c', 'HtTp://x.y.cOm;a/b/c?d=e#f g<h>i',
  'http://x...y...#p', 'http://x/p/"quoted"', '<http://goo.corn/bread> Is a URL!', 'http://www.narwhaljs.org/blog/categories?id=news',
  'http://mt0.google.com/vt/lyrs=m@114&hl=en&src=api&x=2&y=2&z=3&s=', 'http://mt0.google.com/vt/lyrs=m@114???&hl=en&src=api&x=2&y=2&z=3&s=',
  'http://user:pass@mt0.google.com/vt/lyrs=m@114???&hl=en&src=api&x=2&y=2&z=3&s=', 'file:///etc/node/', 'file://localhost/etc/node/',
  'file:///etc/node/', 'http:/baz/../foo/bar', 'http://user:pass@example.com:8000/foo/bar?baz=quux#frag',
  '//user:pass@example.com:8000/foo/bar?baz=quux#frag', '/foo/bar?baz=quux#frag', 'http:/foo/bar?baz=quux#frag',
  'mailto:foo@bar.com?subject=hello', 'javascript:alert(\'hello\');', 'xmpp:isaacschlueter@jabber.org',
  'http://atpass:foo%40bar@127.0.0.1:8080/path?search=foo#bar', 'svn+ssh://foo/bar', 'dash-test://foo/bar',
  'dash-test:foo/bar', 'dot.test://foo/bar', 'dot.test:foo/bar', 'http://www.日本語.com/', 'http://www.Äffchen.com/',
  'http://www.Äffchen.cOm;A/b/c?d=e#f g<h>i', 'http://SÉLIER.COM/', 'http://ليهمابتكلموشعربي؟.ي؟/',
  'http://➡.ws/➡', 'http://bucket_name.s3.amazonaws.com/image.jpg', 'git+http://github.com/joyent/node.git',
  'local1@domain1', 'www.example.com', '[fe80::1]', 'coap://[FEDC:BA98:7654:3210:FEDC:BA98:7654:3210]',
  'coap://[1080:0:0:0:8:800:200C:417A]:61616/', 'http://[2001:db8:85a3:8d3:1319:8a2e:370:7348]:443/',
  'http://a\r" \t\n<\'b:b@c\r\nd/e?f', 'http://a.b/\tbc\ndr\ref g"hq\'j<kl>?mn\\op^q=r`99{st|uv}wz',
  's3://foo.bar/', 'http://-lovemonsterz.tumblr.com/rss', 'http://-lovemonsterz.tumblr.com:80/rss', 'http://user:pass@-lovemonsterz.tumblr.com/rss',
  'http://user:pass@-lovemonsterz.tumblr.com:80/rss', 'http://_jabber._tcp.google.com/test', 'http://user:pass@_jabber._tcp.google.com/test',
  'http://_jabber._tcp.google.com:80/test', 'http://user:pass@_jabber._tcp.google.com:80/test', 'http://x:1/\' <>"`/{}|\\^~`/',
  'http://a@b@c/', 'http://a@b?@c', 'http://a.b/\tbc\ndr\ref g"hq\'j<kl>?mn\\op^q=r`99{st|uv}wz', 'http://a\r" \t\n<\'b:b@c\r\nd/e?f',
  'https://*', 'https://=', '//a/b/c', 'http://[127.0.0.1\nevil.com]', 'http://[127.0.0.1\u0000evil.com]',
];
if (PARSE_CASES.length < 150) throw new Error('too few parse cases');

for (const s of PARSE_CASES) {
  for (const pqs of [false, true]) {
    for (const sdh of [false, true]) both(`parse(${show(s)}, ${pqs}, ${sdh})`, (lib) => lib.parse(s, pqs, sdh));
  }
  both(`format(${show(s)})`, (lib) => lib.format(s));
  both(`parse(${show(s)}).format()`, (lib) => lib.parse(s).format());
  both(`format(parse(${show(s)}, true))`, (lib) => lib.format(lib.parse(s, true)));
  both(`parse(format(parse(${show(s)})))`, (lib) => lib.parse(lib.format(lib.parse(s))));
}
// Truthy non-boolean flags, the Url method form, and re-parsing into a used Url.
both('parse flags 1/"x"', (lib) => lib.parse('//a/b?c=d', 1, 'x'));
both('Url#parse', (lib) => new lib.Url().parse('http://a/b?c', true));
both('Url#parse twice', (lib) => new lib.Url().parse('http://u@a:1/b?c#d').parse('/x'));
both('Url#parseHost', (lib) => Object.assign(new lib.Url(), { host: 'h:12' }).parseHost());
both('Url#parseHost result', (lib) => { const u = Object.assign(new lib.Url(), { host: 'h:' }); u.parseHost(); return u; });
both('parse(Url) is identity', (lib) => { const u = lib.parse('http://x'); return lib.parse(u) === u; });
for (const bad of [5, -0, null, undefined, true, 5n, Symbol('s'), {}, [], Object.create(null), { __proto__: null, a: 1 },
  () => 1, function named() {}, new (class Foo {})(), new URL('http://x')]) {
  both(`parse(${label(bad)})`, (lib) => lib.parse(bad));
}

// ------------------------------------------------------------------ random parse

const R_PROTO = ['', 'http:', 'https:', 'HTTP:', 'file:', 'ftp:', 'mailto:', 'javascript:', 'foo:', 'ws:', 'git+ssh:', 'a:', 'x-y.z:'];
const R_SLASH = ['', '/', '//', '///', '\\\\', '/\\'];
const R_AUTH = ['', '', 'user@', 'u:p@', 'a@b@', '%41@', 'a b@', ':@', '@'];
const R_HOST = ['', 'example.com', 'EXAMPLE.com', 'a', '127.0.0.1', '[::1]', '[FE80::A]', 'xn--espaol-zwa.com', 'español.com',
  '中文.cn', 'a_b', 'a:b', 'a b', 'a"b', '..', '-', 'ⓐⓑ', 'host.', 'ho%st', 'a;b', 'a,b', 'a[b', 'A\tB'];
const R_PORT = ['', '', ':80', ':', ':8080', ':0x', ':99999', ':1:2'];
const R_PATH = ['', '/', '/a', '/a/b/', '/a/./b/../c', 'a/b', '/ ', '/%20', '/a b', '/é', '/\\', '/"', '/{}', '/a@b', '/:c',
  '/..', '/.', '/~u', '/a;b', "/'", '/<>', '/^|`', '/a\tb', '/\u00a0'];
const R_QUERY = ['', '', '?', '?a=1', '?a=1&a=2', '?a', '?a=b+c%20d', '?#', '??', '?a=\\', '?x y', '?é=ü', '?%zz', '?a[b]=c'];
const R_HASH = ['', '', '#', '#x', '#x y', '#?q', '#\\', '##', '#é', '#<>'];
const R_WS = ['', '', '', ' ', '\t', '\n', '\u00a0', '\ufeff', '\x00'];
const RANDOM_PARSE = [];
for (let i = 0; i < 3000 * SCALE; i++) {
  RANDOM_PARSE.push(pick(R_WS) + pick(R_PROTO) + pick(R_SLASH) + pick(R_AUTH) + pick(R_HOST) + pick(R_PORT) +
    pick(R_PATH) + pick(R_QUERY) + pick(R_HASH) + pick(R_WS));
}
for (const s of RANDOM_PARSE) {
  both(`random parse(${show(s)})`, (lib) => lib.parse(s));
  both(`random parse(${show(s)}, true, true)`, (lib) => lib.parse(s, true, true));
  both(`random format(${show(s)})`, (lib) => lib.format(s));
}

// ------------------------------------------------------------------ format objects

const FORMAT_CASES = [
  {}, { protocol: null, host: null, pathname: null, search: null, hash: null },
  { protocol: undefined, hostname: undefined, port: undefined, pathname: undefined, query: undefined },
  { protocol: '', hostname: '', port: '', pathname: '', search: '', hash: '', auth: '' },
  { protocol: 'http', hostname: 'a.com', pathname: '/json', search: null, hash: null },
  { protocol: 'http:', host: 'a.com:81', hostname: 'b.com', port: 82, pathname: '/x' },
  { protocol: 'http', hostname: 'a.com', port: 8080, pathname: 'x', search: 'y', hash: 'z' },
  { protocol: 'http', hostname: 'a.com', port: '8080', pathname: '/x', search: '?y', hash: '#z' },
  { protocol: 'http:', hostname: 'a.com', query: { a: 1, b: [2, 3], c: '', d: 'x y', e: null, f: undefined } },
  { protocol: 'http:', hostname: 'a.com', query: { a: 1 }, search: '?b=2' }, { protocol: 'http:', hostname: 'a.com', query: {}, search: '' },
  { protocol: 'http:', hostname: 'a.com', query: 'a=1' }, { protocol: 'http:', hostname: 'a.com', query: null, search: null },
  { protocol: 'http:', hostname: 'a.com', query: Object.assign(Object.create(null), { x: 'y' }) },
  { protocol: 'file', pathname: '/x' }, { protocol: 'file:', pathname: 'x' }, { protocol: 'file:' }, { protocol: 'file', host: 'h', pathname: 'p' },
  { protocol: 'mailto', pathname: 'x', auth: 'a', hostname: 'b' }, { protocol: 'mailto:', auth: 'a b', host: 'c' },
  { protocol: 'xmpp', slashes: true, host: 'h', pathname: 'p' }, { protocol: 'foo', host: 'h', pathname: 'p' },
  { protocol: 'foo:', slashes: true, pathname: '/p' }, { slashes: true, host: 'h' }, { slashes: true, pathname: 'p' },
  { protocol: 'http', pathname: 'p' }, { protocol: 'https', slashes: false, hostname: 'h' }, { protocol: 'ws', host: 'h' },
  { protocol: 'wss:', host: 'h', pathname: '/a#b?c', search: '?d#e', hash: 'f#g' }, { pathname: 'a?b#c' },
  { hostname: '::1', port: 80 }, { hostname: '[::1]', port: 80 }, { hostname: 'fe80::1', protocol: 'http' },
  { host: '::1' }, { auth: 'user:pass', hostname: 'h' }, { auth: 'u@s:p@ss/?#', host: 'h' }, { auth: 'é€😀 ~!*()\'', host: 'h' },
  { auth: 'user', protocol: 'http' }, { auth: 'a\ud800b', host: 'h' }, { href: 'http://ignored/', protocol: 'x' },
  { protocol: 'HTTP', hostname: 'A.COM' }, { protocol: 'http:::', hostname: 'a' }, { protocol: 5, hostname: 6, port: 7, pathname: 8 },
  { search: 'a', hash: 'b' }, { search: '#a', hash: '#b' }, { search: '?', hash: '#' }, { hash: 0, search: 0, port: 0 },
  { protocol: 'http', hostname: 'a', pathname: '/', port: null, auth: null, slashes: null },
  { protocol: 'javascript:', pathname: 'alert(1)' }, { protocol: 'javascript', slashes: true, pathname: 'x' },
  Object.assign(Object.create({ protocol: 'http', host: 'inherited' }), { pathname: '/own' }),
  // parts that are not strings
  { protocol: 5 }, { protocol: 'http', pathname: 8 }, { pathname: ['a#b'] }, { pathname: { length: 1 } }, { search: 1 },
  { search: ['#'] }, { hash: 2 }, { auth: 3, host: 'h' }, { auth: ['a:b'], host: 'h' }, { host: 4 }, { port: 5, hostname: 'a' },
  { hostname: ['::1'] }, { hostname: 'a', port: {} }, { protocol: ['http'] }, { protocol: true, slashes: 1 },
  { auth: { toString: () => 'x' }, host: 'h' }, { query: [1, 2] }, { query: 'x', search: '' }, { auth: 'a\udc00', host: 'h' },
  { auth: '\udc00b', host: 'h' }, { auth: 'a\ud83d\ude00b', host: 'h' }, { auth: '\ud800\ud800', host: 'h' },
];
FORMAT_CASES.forEach((o, i) => both(`format(${JSON.stringify(o)}) #${i}`, (lib) => lib.format(o)));
FORMAT_CASES.forEach((o, i) => both(`Url#format.call(#${i})`, (lib) => lib.Url.prototype.format.call(o)));
for (const bad of [5, null, undefined, true, () => 1, function named() {}, class K {}, Symbol('x'), 5n, NaN]) {
  both(`format(${label(bad)})`, (lib) => lib.format(bad));
}
both('format([])', (lib) => lib.format([]));
both('format(new Url())', (lib) => lib.format(new lib.Url()));

// ------------------------------------------------------------------ format(URL, options)

const WHATWG = ['http://u:p@xn--espaol-zwa.com:8080/p?q#h', 'http://a/?#', 'http://a/', 'http://u@a/', 'http://:p@a/',
  'foo://u:p@xn--espaol-zwa.com/x?y#z', 'file:///x?y#z', 'mailto:x@xn--espaol-zwa.com', 'http://[::1]:80/',
  'http://xn--invalid.com.xn--espaol-zwa.com/', 'https://中文.com/a?b#c', 'http://xn--abc-.com/', 'http://u:p@1.2.3.4:1/',
  'blob:http://x/y', 'data:,x', 'http://xn--fiq228c.xn--55qx5d/', 'ws://xn--ls8h.la/#', 'http://u%20x:p%40@xn--0ca.com/'];
const OPTIONS = [undefined, null, {}, { unicode: true }, { auth: false }, { search: false }, { fragment: false },
  { unicode: true, auth: false, search: false, fragment: false }, { fragment: 0, search: '', auth: null, unicode: 1 },
  { unicode: 'yes', auth: undefined }, new Map(), Object.create(null), 0, '', -0, NaN, false];
for (const href of WHATWG) {
  OPTIONS.forEach((opts, i) => both(`format(URL ${href}, options #${i})`, (lib) => lib.format(new URL(href), opts)));
}
class SubURL extends URL {}
both('format(subclass of URL)', (lib) => lib.format(new SubURL('http://a/#x'), { fragment: false }));
both('format(URL-shaped object)', (lib) => lib.format({ href: 'http://a/#x', protocol: 'http:', hash: '#x' }, { fragment: false }));
for (const opts of [5, 'x', 'x'.repeat(27), 'x'.repeat(28), 'x'.repeat(40), "it's", 'a\nb', [1], () => {}, true, 5n, 1e21,
  12345678901234567890123456789, Symbol('sym')]) {
  both(`format(URL, ${label(opts)})`, (lib) => lib.format(new URL('http://a'), opts));
}

// ------------------------------------------------------------------ resolve

const RESOLVE_CASES = [
  // Node's documentation
  ['/one/two/three', 'four'], ['http://example.com/', '/one'], ['http://example.com/one', '/two'],
  ['http://example.com/one', 'two'], ['http://example.com/one/', 'two'],
  // RFC 3986 section 5.4 against its base
  ...['g:h', 'g', './g', 'g/', '/g', '//g', '?y', 'g?y', '#s', 'g#s', 'g?y#s', ';x', 'g;x', 'g;x?y#s', '', '.', './',
    '..', '../', '../g', '../..', '../../', '../../g', '../../../g', '../../../../g', '/./g', '/../g', 'g.', '.g', 'g..',
    '..g', './../g', './g/.', 'g/./h', 'g/../h', 'g;x=1/./y', 'g;x=1/../y', 'g?y/./x', 'g?y/../x', 'g#s/./x',
    'g#s/../x', 'http:g', 'http:', 'http:/', 'http://', 'https:g', 'mailto:a@b', 'javascript:x', '\\g', '\\\\g\\h', ' g ']
    .map((r) => ['http://a/b/c/d;p?q', r]),
  // assorted bases
  ['http://example.com/b//c//d;p?q#blarg', 'https:#hash2'], ['http://example.com/b//c//d;p?q#blarg', 'https:/p/a/t/h?s#hash2'],
  ['http://example.com/b//c//d;p?q#blarg', 'https://u:p@h.com/p/a/t/h?s#hash2'], ['http://example.com/b//c//d;p?q#blarg', 'https:/a/b/c/d'],
  ['http://example.com/b//c//d;p?q#blarg', 'http:#hash2'], ['http://example.com/b//c//d;p?q#blarg', 'http:/p/a/t/h?s#hash2'],
  ['http://example.com/b//c//d;p?q#blarg', 'http://u:p@h.com/p/a/t/h?s#hash2'], ['http://example.com/b//c//d;p?q#blarg', 'http:/a/b/c/d'],
  ['/foo/bar/baz', 'quux'], ['/foo/bar/baz', 'quux/asdf'], ['/foo/bar/baz', 'quux/baz'], ['/foo/bar/baz', '../quux/baz'],
  ['/foo/bar/baz', '/bar'], ['/foo/bar/baz/', 'quux'], ['/foo/bar/baz/', 'quux/baz'], ['/foo/bar/baz', '../../../../../../../../quux/baz'],
  ['/foo/bar/baz', '../../../../../../../quux/baz'], ['/foo', '.'], ['/foo', '..'], ['/foo/', '.'], ['/foo/', '..'],
  ['/foo/bar', '.'], ['/foo/bar', '..'], ['/foo/bar/', '.'], ['/foo/bar/', '..'], ['foo/bar', '../../../baz'],
  ['foo/bar/', '../../../baz'], ['http://example.com/b//c//d;p?q#blarg', 'https://p/a/t/h?s#hash2'],
  ['http://example.com/b//c//d;p?q#blarg', 'mailto:foo@bar.com'], ['mailto:foo@bar.com', 'mailto:baz@quux.com'],
  ['mailto:foo@bar.com', 'x'], ['mailto:foo@bar.com', '/x'], ['mailto:foo@bar.com', '?x'], ['mailto:foo@bar.com', '../x'],
  ['mailto:foo@bar.com', '//x/y'], ['mailto:a@b/c/d', 'e'], ['mailto:a@b/c/d', '../e'], ['foo:a/b', 'c'], ['foo:/a/b', 'c'],
  ['foo:a', '..'], ['foo:a/b/c', '../..'], ['foo:a@h/b', '?q'], ['foo:', 'x'], ['foo:', '?x'],
  ['javascript:alert(1)', 'x'], ['javascript:alert(1)', '#x'], ['file:///a/b', 'c'], ['file:///a/b', '/c'], ['file:///a/b', '../../../c'],
  ['file://host/a', 'b'], ['file:', 'x'], ['http://a/b', 'file:c'], ['http://a/b', 'file:/c'], ['http://a/b', 'file:///c'],
  ['http://a/b', 'http:c/d'], ['http://a/b', 'https:c/d'], ['http://a/b', 'https:'], ['http://a/b', 'https:?q'],
  ['http://a/b', 'ftp:/x'], ['http://a/b', 'ws:h:1/p'], ['http://a/b', 'HTTP://X/Y'], ['http://a/b', '//x'], ['http://a/b', '//x/'],
  ['http://a/b', '//'], ['http://a/b', '///'], ['http://a/b', '//u@x:9/y?z#w'], ['http://u:p@a/b', '/c'], ['http://u:p@a/b', '//a/c'],
  ['http://u:p@a/b', '//b/c'], ['http://u:p@a/b', 'c'], ['http://u:p@a:1/b', '//a:2/c'], ['http://a/b?x#y', ''], ['http://a/b?x#y', '#'],
  ['http://a/b?x#y', '?'], ['http://a/b?x#y', '?z'], ['http://a/b?x#y', '#z'], ['http://a/b/', ''], ['http://a', ''], ['http://a', 'b'],
  ['http://a', '?b'], ['http://a', '#b'], ['http://a', '.'], ['http://a', '..'], ['http://a', './'], ['http://a/b/c', '../../..'],
  ['http://a/b/c', '../../../'], ['http://a/b/c/', '.'], ['http://a/b/c/', '..'], ['http://a/b/c/.', 'd'], ['http://a/./b/../c', 'd'],
  ['http://a/b', '.././../c/./d/..'], ['http://a/b', 'c/..'], ['http://a/b', 'c/.'], ['http://a/b', 'c/../'], ['', 'a'], ['', ''],
  ['a', ''], ['a', 'b'], ['a/b', 'c'], ['a/b/', '../c'], ['../a', 'b'], ['./a', '../../b'], ['?x', 'y'], ['#x', 'y'], ['?x', '?y'],
  ['//a/b', 'c'], ['//a/b', '//c'], ['//a', 'b'], ['//a', '?b'], ['//u@a/b', 'c'], ['http:a/b', 'c'], ['http:/a/b', 'c'],
  ['http:///a', 'b'], ['http://[::1]/a', 'b'], ['http://[::1]:80/a', '//[::2]/b'], ['http://a.com/b', 'http://español.com/c'],
  ['http://a/b c/d', 'e f'], ['http://a/b', 'c?d#e'], ['http://a/b', '\\c'], ['http://a/b/c', 'g:h/../i'], ['http://a/b', '   c  '],
];
for (const [from, to] of RESOLVE_CASES) {
  both(`resolve(${show(from)}, ${show(to)})`, (lib) => lib.resolve(from, to));
  both(`resolveObject(${show(from)}, ${show(to)})`, (lib) => lib.resolveObject(from, to));
  both(`resolveObject(parse(${show(from)}), parse(${show(to)})) + relative`, (lib) => {
    const rel = lib.parse(to);
    return [lib.resolveObject(lib.parse(from), rel), rel];
  });
  both(`Url#resolve(${show(from)}, ${show(to)})`, (lib) => lib.parse(from).resolve(to));
}
// Random pairs built from pieces that exercise the different branches.
const RR = ['', '.', '..', 'a', 'b/', '../c', './d/', '/e', '//f/g', '?h', '#i', 'http:', 'http:j', 'https://k/l', 'mailto:m@n',
  'foo:o/p', 'file:q', 'u@v', '../../w', 'x/../..', 'y;z', '/./', 'javascript:void(0)', '//', '/..', 'a/./b/../c/'];
const RB = ['http://a/b/c', 'http://a', 'http://u:p@a:1/b/', 'https://a/b?c#d', '/b/c', 'b/c', '', 'mailto:a@b/c', 'foo:a/b',
  'foo://a/b', 'file:///a/b', '//a/b', 'javascript:x', '?q', '#h', 'http:b/c', 'x:'];
for (let i = 0; i < 1500 * SCALE; i++) {
  const from = pick(RB) + (rand() < 0.3 ? pick(RR) : '');
  const to = pick(RR) + (rand() < 0.4 ? pick(RR) : '') + (rand() < 0.2 ? pick(RR) : '');
  both(`random resolve(${show(from)}, ${show(to)})`, (lib) => lib.resolve(from, to));
  both(`random resolveObject(${show(from)}, ${show(to)})`, (lib) => lib.resolveObject(from, to));
}
// Odd arguments.
both('resolveObject("", "x")', (lib) => lib.resolveObject('', 'x'));
both('resolveObject(null, "x")', (lib) => lib.resolveObject(null, 'x'));
both('resolveObject(0, {})', (lib) => lib.resolveObject(0, {}));
both('resolveObject(url, 5)', (lib) => lib.resolveObject(lib.parse('http://a/b'), 5));
both('resolveObject(url, {pathname})', (lib) => lib.resolveObject(lib.parse('http://a/b'), { pathname: 'x' }));
both('resolveObject(url, extra keys)', (lib) => lib.resolveObject(Object.assign(lib.parse('http://a/b'), { extra: 1 }), 'c'));
both('resolveObject({pathname}, "y")', (lib) => lib.resolveObject({ pathname: 'x' }, 'y'));
both('resolve(5, "a")', (lib) => lib.resolve(5, 'a'));
both('resolve("a", 5)', (lib) => lib.resolve('a', 5));
both('resolve("a", {})', (lib) => lib.resolve('a', {}));

// ------------------------------------------------------------------ domains

const DOMAINS = ['', 'example.com', 'EXAMPLE.COM', 'ExAmPlE.CoM', 'español.com', 'ESPAÑOL.com', 'xn--espaol-zwa.com',
  'XN--ESPAOL-ZWA.COM', '中文.com', 'xn--fiq228c.com', 'xn--iñvalid.com', 'xn--a.com', 'xn--abc-.com', 'xn--.com',
  'a\tb.com', 'a\nb', 'a b.com', ' a.com', 'a.com ', 'a%41.com', 'a%zz.com', '%', 'a%2e.com', '%C3%A9.com', '%C3.com', '%FF',
  '0x7f.1', '1.2.3.4', '1.2.3.4.5', '1.2.3.256', '1.2.65536', '4294967295', '4294967296', '0x', '0x.0x', '09', '08.1', '1.2.3.4.',
  '1..2', 'a.1', '1.a', '0xg', '[::1]', '[::1]:80', '[::1]x', '[::ffff:1.2.3.4]', '[1:2:3:4:5:6:7:8]', '[::1', '::1',
  'a.com/path', 'a.com:80', 'a.com?x', 'a.com#x', 'a.com\\x', 'user@a.com', 'a..b', '.a', 'a.', '.', '..', 'faß.de', 'ＡＢＣ.com',
  'a。b', 'a\u3002b\uff0ec\uff61d', '\u00ad', 'a\u00adb', 'a\u200db', 'a\u200cb', '\u0300a', 'a\ufffd', '😀.com', 'a\x01b', 'a\x7fb',
  'a_b', 'a*b', 'a!b', 'a$b', 'a&b', "a'b", 'a(b)', 'a+b', 'a,b', 'a;b', 'a=b', 'a~b', '-a', 'a-', 'ab--cd', 'xn--ab--cd-nc1c.com',
  'xn--9hbcd.com', 'xn--a-bqc.com', 'xn--0ca.com', 'xn--0CA.com', 'xn--e28h.com', 'xn--zca.com', 'xn--nxasmm1c', 'βόλος.com',
  'Βόλος.com', 'ΒΌΛΟΣ.com', 'xn--bcher-kva.ch', 'Bücher.ch', 'a'.repeat(64) + '.com', 'a'.repeat(300), 'xn--ls8h.la',
  'straße.de', 'İstanbul.com', 'ǅ.com', 'ﬁ.com', '①.com', 'Ⅻ.com', 'xn--mnchen-3ya.de', 'München.de', 'MÜNCHEN.DE', 'xn--ggg',
  'xn--abcdef-', 'xn--55qx5d', 'XN--55QX5D', 'a.xn--55qx5d', 'xn--f', 'xn--0', 'xn--zzzzzzz', 'xn--8', 'xn--1ch', '1',
  'a\\b', 'a<b', 'a^b', 'a|b', 'a"b', 'a`b', 'a{b', 'a[b', 'a]b', 'a:b', 'a\u0000b', 'а.com', 'xn--80a.com', '\u0661\u0662',
  'a\u0661', '\u05d0\u05d1.com', '\u05d0a.com', 'xn--4dbrk0ce', '\u00e0\u0301', 'e\u0301', 'ⓐ.com', 'ᵃ.com', 'a\u200bb',
  'a\u2060b', 'a\ufe0fb', 'a\u034fb', 'a\u180bb', 'a\u00a0b', 'a\u3000b', 'xn--e-ufa', 'xn--ab-fsf', 'xn--mnchen-3ya-',
  'xn--9', 'xn--99999999999', 'xn--zzzzzzzzzzzzzzzzzzzz', 'www.google.com', 'WWW.日本語.COM', 'ليهمابتكلموشعربي؟.ي؟',
  'xn--egbpdaj6bu4bxfgehfvwxn', 'Äffchen', '➡.ws', 'xn--hgi.ws', 'ab\u00df', 'xn--ab-ida', '\ud800.com', 'a\udc00b',
  // the Bidi rule and joiners
  '١x', 'x١', '١xn--', '١-', '-١', 'é.١', '文١a', '文١', '1١', 'a١a', '١a', 'ع.1a', 'ع1', '1ع', 'ع٣', 'عa', 'ع😀', '😀ع', 'ع-',
  'ع\u0301', 'ع.1', 'ع.12', 'ع.1a1', 'א١', 'א٣', 'א۳', 'א1١', 'ע-ע', 'ע,ע', 'ע%ע', 'ע$ע', 'עé', 'ע\u0308', 'ע\u0903', 'aאא',
  'aaא', 'aא\u0301', 'éאa', '1aא', 'עa.com', 'xn--4db', 'xn--a-0nc', 'xn--4gb-', 'क\u094d\u200dष', 'a\u094d\u200c',
  'क\u094d\u200c', '\u200dक', 'ẞ', 'ẞΩ', 'ꭰ', 'Ꭰ', 'ᏸ', '_\u0345', 'ᾈ', '⒈a', 'a\u2024b', '\u3164a', '\u115f中',
];
for (const d of DOMAINS) {
  both(`domainToASCII(${show(d)})`, (lib) => lib.domainToASCII(d));
  both(`domainToUnicode(${show(d)})`, (lib) => lib.domainToUnicode(d));
  both(`domainToUnicode(domainToASCII(${show(d)}))`, (lib) => lib.domainToUnicode(lib.domainToASCII(d)));
}
for (const v of [5, null, undefined, { toString: () => 'A.com' }, true]) {
  both(`domainToASCII(${String(v)})`, (lib) => lib.domainToASCII(v));
  both(`domainToUnicode(${String(v)})`, (lib) => lib.domainToUnicode(v));
}
// Random names from characters real domains use, plus the ones IDNA treats specially:
// case variants, compatibility forms, ignorables, joiners after a virama, right-to-left
// letters and Arabic digits (the Bidi rule), combining marks, emoji, escapes.
const IDN_ALPHABET = ['a', 'b', 'Z', '0', '9', '-', '_', '.', 'é', 'É', 'ü', 'ñ', 'ß', 'ẞ', '中', '文', '日本', 'Σ', 'ς', 'σ', 'Ω',
  'я', 'Ж', 'א', 'ב', 'ع', 'ﻉ', '١', '٣', '۳', '\u0301', '\u0308', '\u0300', '\u200d', '\u200c', '\u00ad', '\u200b', '\ufe0f',
  'Ａ', '１', '。', '．', '😀', '♚', 'xn--', 'İ', 'ı', 'ﬁ', '①', '⒈', '\u094d', 'क', 'ष', 'ǅ', 'ʼ', '·', '׳', '・', 'ー', '가', '½',
  '™', '℡', '⼀', 'ᾈ', 'ǰ', '\u0345', 'Ꭰ', 'ꭰ', 'ᏸ', '\u{10400}', '\u{1d400}', '%', '%41', '%c3%a9', ':', '@', '!', '$', ',',
  '\x7f', '\u0080', '\u00a0', '\u3164', '\ufff9', '\ud800', '[', ']', '/', '?', '#', ' ', '\t'];
for (let i = 0; i < 1500 * SCALE; i++) {
  let d = '';
  for (let n = 1 + Math.floor(rand() * 5); n > 0; n--) d += pick(IDN_ALPHABET);
  if (rand() < 0.3) d += pick(['.com', '.ع', '.中国', '.1', '.', '.xn--fiq228c']);
  both(`random domainToASCII(${show(d)})`, (lib) => lib.domainToASCII(d));
  both(`random domainToUnicode(${show(d)})`, (lib) => lib.domainToUnicode(d));
  both(`random parse host ${show(d)}`, (lib) => lib.parse(`http://${d}/x`));
}
both('domainToASCII()', (lib) => lib.domainToASCII());
both('domainToUnicode()', (lib) => lib.domainToUnicode());
both('domainToASCII(symbol)', (lib) => lib.domainToASCII(Symbol('s')));

// ------------------------------------------------------------------ urlToHttpOptions

for (const href of ['http://u%40:p%3A@[::1]:8080/p?q#h', 'http://a.com/', 'https://a.com:443/x', 'http://u@a/', 'http://:p@a/',
  'file:///x', 'http://a/?', 'http://a/#', 'http://%E2%82%AC:%zz@a/', 'http://xn--espaol-zwa.com/']) {
  both(`urlToHttpOptions(${href})`, (lib) => lib.urlToHttpOptions(new URL(href)));
}
both('urlToHttpOptions({})', (lib) => lib.urlToHttpOptions({}));
both('urlToHttpOptions(extended)', (lib) => lib.urlToHttpOptions(Object.assign(new URL('http://a/'), { agent: 1 })));
both('urlToHttpOptions(plain)', (lib) => lib.urlToHttpOptions({ hostname: '[::1]', port: '', pathname: '/x', search: '', x: 1 }));
both('urlToHttpOptions()', (lib) => lib.urlToHttpOptions());
both('urlToHttpOptions(null)', (lib) => lib.urlToHttpOptions(null));

// ------------------------------------------------------------------ warnings

check('warnings', warnings.mine, warnings.node);

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
