// The sandbox in which `webnn-harness import-wpt` runs one WPT WebNN test file
// (harness/loading/wpt_import.py starts it: node with the permission model on,
// allowed to read this file and nothing else, no child processes, no workers,
// a bounded heap, and killed after a time limit).
//
// stdin: one JSON object {"scripts": [{"name", "text"}], "test": {"name", "text"},
// "timeoutMs"}: the file's META scripts (WPT's webnn/resources/utils.js) and the
// test file itself, as text; nothing is read from disk here.
// stdout: one JSON object {"calls": [{"tests": [...], "tolerance": {...},
// "caseTolerances": [...]}]}, or {"error": "..."}.
//
// The code runs in a fresh vm context whose global object has no prototype and
// holds no object of this realm: no require, process, fetch, timers or
// URLSearchParams; only ECMAScript's built-ins and the names WPT's page would
// give the scripts (location, navigator without ml, testharness.js's
// functions as no-ops, the standard globals in STANDARD: structuredClone,
// TextEncoder...), each defined inside the context. Strings are never
// compiled as code inside it (no eval, no new Function).
'use strict';
const vm = require('vm');

// What the scripts see of the page and of testharness.js, defined inside the
// context so that no function of this realm (and so no path to `process`)
// reaches it. webnn_conformance_test is replaced after the META scripts ran:
// it records the cases and the tolerance function instead of running them.
const PAGE = `
  globalThis.self = globalThis;
  globalThis.window = globalThis;
  globalThis.location = {search: '', href: 'https://web-platform.test/webnn/conformance_tests/'};
  // A WebNN page: files written before webnn_conformance_test checked navigator.ml themselves
  // build their cases only where it exists. Nothing here is ever called.
  globalThis.navigator = {ml: {}};
  globalThis.URLSearchParams = class URLSearchParams {
    get() { return null; }
    getAll() { return []; }
    has() { return false; }
  };
  for (const name of ['test', 'promise_test', 'promise_setup', 'setup', 'done', 'async_test',
                      'assert_true', 'assert_false', 'assert_equals', 'assert_array_equals',
                      'assert_implements', 'assert_unreached', 'promise_rejects_js',
                      'assert_implements_optional', 'assert_not_equals', 'assert_less_than',
                      'assert_less_than_equal', 'assert_greater_than', 'assert_greater_than_equal',
                      'assert_approx_equals', 'assert_array_approx_equals', 'assert_in_array',
                      'assert_own_property', 'assert_class_string', 'assert_throws_js',
                      'assert_throws_dom', 'assert_throws_exactly', 'promise_rejects_dom',
                      'promise_rejects_exactly', 'step_timeout', 'add_completion_callback',
                      'add_result_callback', 'add_start_callback', 'generate_tests']) {
    globalThis[name] = function() {};
  }
  globalThis.format_value = (value) => String(value);
  globalThis.GLOBAL = {isWindow: () => true, isWorker: () => false, isShadowRealm: () => false};
  globalThis.isSecureContext = true;
`;

// The web platform's standard globals a test file may use at load time
// (structuredClone to copy a case, TextEncoder/TextDecoder, atob/btoa,
// DOMException, Float16Array and Math.f16round where this node lacks them,
// timers that never fire, a clock that reads 0), written here in plain
// ECMAScript, inside the context: no host function is handed in.
const STANDARD = `
  (() => {
    const define = (name, value) => {
      if (typeof globalThis[name] === 'undefined') {
        Object.defineProperty(globalThis, name, {value, writable: true, configurable: true});
      }
    };
    class DOMException extends Error {
      constructor(message = '', name = 'Error') {
        super(message);
        this.name = name;
      }
    }
    define('DOMException', DOMException);

    // ES2025 Math.f16round: to the nearest binary16 value, ties to even, from the double itself.
    const f16round = (x) => {
      x = Number(x);
      if (!Number.isFinite(x) || x === 0) return x;
      const magnitude = Math.abs(x);
      if (magnitude >= 65520) return Math.sign(x) * Infinity;
      let exponent = Math.max(Math.floor(Math.log2(magnitude)), -14);
      if (exponent > -14 && 2 ** exponent > magnitude) exponent -= 1;
      if (2 ** (exponent + 1) <= magnitude) exponent += 1;
      const quantum = 2 ** (Math.max(exponent, -14) - 10);
      const steps = magnitude / quantum;
      let rounded = Math.round(steps);
      if (rounded - steps === 0.5 && rounded % 2 === 1) rounded -= 1;
      return Math.sign(x) * rounded * quantum;
    };
    if (typeof Math.f16round === 'undefined') {
      Object.defineProperty(Math, 'f16round', {value: f16round, writable: true, configurable: true});
    }
    const fromHalfBits = (bits) => {
      const sign = bits & 0x8000 ? -1 : 1;
      const exponent = (bits >> 10) & 31;
      const fraction = bits & 1023;
      if (exponent === 31) return fraction ? NaN : sign * Infinity;
      return exponent ? sign * (1024 + fraction) * 2 ** (exponent - 25) : sign * fraction * 2 ** -24;
    };
    // A stand-in for ES2025's Float16Array where this node has none: an Array
    // whose values are rounded to binary16 when it is made (a case's data), or
    // read from a buffer's binary16 bits; later writes are not rounded nor
    // reach the buffer, and ArrayBuffer.isView is false for it.
    class Float16Array extends Array {
      constructor(source = 0, ...rest) {
        if (typeof source === 'number') {
          super(source);
          this.fill(0);
        } else if (source instanceof ArrayBuffer || source instanceof SharedArrayBuffer) {
          super();
          for (const bits of new Uint16Array(source, ...rest)) this.push(fromHalfBits(bits));
        } else {
          super();
          for (const value of Array.from(source)) this.push(f16round(value));
        }
      }
      static from(source, map) { return new Float16Array(Array.from(source, map)); }
      static of(...values) { return new Float16Array(values); }
    }
    Object.defineProperty(Float16Array, 'BYTES_PER_ELEMENT', {value: 2});
    define('Float16Array', Float16Array);

    // HTML's structured clone of the values a test file holds: primitives,
    // arrays, plain objects, typed arrays and their buffers, Map, Set, Date,
    // RegExp, errors; cycles kept; a function or symbol is a DataCloneError.
    const clone = (value, seen) => {
      if (typeof value === 'function' || typeof value === 'symbol') {
        throw new DOMException(String(value) + ' could not be cloned.', 'DataCloneError');
      }
      if (value === null || typeof value !== 'object') return value;
      if (seen.has(value)) return seen.get(value);
      let out;
      if (value instanceof ArrayBuffer) {
        out = value.slice(0);
      } else if (value instanceof DataView) {
        out = new DataView(clone(value.buffer, seen), value.byteOffset, value.byteLength);
      } else if (ArrayBuffer.isView(value)) {
        out = new value.constructor(clone(value.buffer, seen), value.byteOffset, value.length);
      } else if (value instanceof Date) {
        out = new Date(value.getTime());
      } else if (value instanceof RegExp) {
        out = new RegExp(value.source, value.flags);
      } else if (value instanceof Map) {
        out = new Map();
        seen.set(value, out);
        for (const [k, v] of value) out.set(clone(k, seen), clone(v, seen));
        return out;
      } else if (value instanceof Set) {
        out = new Set();
        seen.set(value, out);
        for (const v of value) out.add(clone(v, seen));
        return out;
      } else if (value instanceof Error) {
        out = new Error(value.message);
        out.name = value.name;
      } else {
        out = Array.isArray(value) ? new value.constructor(value.length) : {};
        seen.set(value, out);
        for (const key of Object.keys(value)) out[key] = clone(value[key], seen);
        return out;
      }
      seen.set(value, out);
      return out;
    };
    define('structuredClone', (value) => clone(value, new Map()));

    // WHATWG Encoding's UTF-8 encoder and decoder (invalid input decodes to U+FFFD).
    class TextEncoder {
      get encoding() { return 'utf-8'; }
      encode(text = '') {
        const bytes = [];
        for (const ch of String(text)) {
          let c = ch.codePointAt(0);
          if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;  // a lone surrogate
          if (c < 0x80) bytes.push(c);
          else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
          else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
          else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        }
        return new Uint8Array(bytes);
      }
    }
    class TextDecoder {
      constructor(label = 'utf-8') {
        if (!/^\\s*(utf-?8|unicode-1-1-utf-8)\\s*$/i.test(label)) throw new RangeError('only utf-8 is decoded here');
      }
      get encoding() { return 'utf-8'; }
      decode(input = new Uint8Array(0)) {
        const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) :
            new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
        let out = '';
        for (let i = 0; i < bytes.length;) {
          const b = bytes[i];
          const size = b < 0x80 ? 1 : (b >> 5) === 6 ? 2 : (b >> 4) === 14 ? 3 : (b >> 3) === 30 ? 4 : 0;
          let c = size === 1 ? b : size ? b & (0xff >> (size + 1)) : -1;
          for (let k = 1; k < size && c >= 0; ++k) {
            const next = bytes[i + k];
            c = (next !== undefined && (next >> 6) === 2) ? (c << 6) | (next & 63) : -1;
          }
          const minimum = [0, 0, 0x80, 0x800, 0x10000][size];
          out += (c < minimum || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) ? '\\ufffd' : String.fromCodePoint(c);
          i += c < 0 ? 1 : size;
        }
        return out;
      }
    }
    define('TextEncoder', TextEncoder);
    define('TextDecoder', TextDecoder);

    const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    define('btoa', (text) => {
      text = String(text);
      let out = '';
      for (let i = 0; i < text.length; i += 3) {
        const codes = [0, 1, 2].map((k) => text.charCodeAt(i + k));
        if (codes.some((c) => c > 255)) throw new DOMException('not Latin-1', 'InvalidCharacterError');
        const [a, b, c] = codes;
        out += BASE64[a >> 2] + BASE64[((a & 3) << 4) | ((b || 0) >> 4)] +
            (Number.isNaN(b) ? '=' : BASE64[((b & 15) << 2) | ((c || 0) >> 6)]) +
            (Number.isNaN(c) ? '=' : BASE64[c & 63]);
      }
      return out;
    });
    define('atob', (text) => {
      const clean = String(text).replace(/[\\t\\n\\f\\r ]/g, '').replace(/==?$/, '');
      let bits = 0, count = 0, out = '';
      for (const ch of clean) {
        const v = BASE64.indexOf(ch);
        if (v < 0) throw new DOMException('not base64', 'InvalidCharacterError');
        bits = (bits << 6) | v;
        count += 6;
        if (count >= 8) {
          count -= 8;
          out += String.fromCharCode((bits >> count) & 255);
        }
      }
      return out;
    });

    // Timers that never fire (nothing runs after the file's own evaluation), a clock at 0.
    let timer = 0;
    for (const name of ['setTimeout', 'setInterval']) define(name, () => ++timer);
    for (const name of ['clearTimeout', 'clearInterval']) define(name, () => {});
    define('queueMicrotask', (callback) => { Promise.resolve().then(callback); });
    define('performance', {now: () => 0, timeOrigin: 0});
  })();
`;

// Both of utils.js's signatures: today's (tests, buildFunc, toleranceFunc), called once per file,
// and the older (buildFunc, toleranceFunc, test), called once per case. Older files name build
// functions today's utils.js no longer has; the recorder never calls one, so a stand-in will do.
const RECORDER = `
  globalThis.__calls = [];
  globalThis.__recorder = globalThis.webnn_conformance_test = function(first, second, third) {
    if (typeof first === 'function') {
      __calls.push({tests: [third], toleranceFunc: second});
    } else {
      __calls.push({tests: first, toleranceFunc: third});
    }
  };
  if (typeof buildGraphAndCompute === 'undefined') globalThis.buildGraphAndCompute = function() {};
  if (typeof buildAndExecuteGraph === 'undefined') globalThis.buildAndExecuteGraph = function() {};
  if (webnn_conformance_test !== __recorder) {
    throw new Error("utils.js's webnn_conformance_test is declared so that the recorder cannot replace it");
  }
`;

// WPT's utils.js declares `const webnn_conformance_test = ...`: a global lexical binding, which
// a later script can neither assign nor shadow, so the recorder above would never be called and
// every file would seem to make no case. Declared with var instead, it is a property of the
// global object, which the recorder replaces. Only that one declaration changes.
const RECORDABLE = /\b(?:const|let)(\s+webnn_conformance_test\b)/g;

// WPT's JSON-less values in our encoding (harness/schema/cases.schema.json):
// NaN and the infinities as strings, 64-bit integers beyond 2^53 as {"bigint"},
// typed arrays as arrays.
const SERIALISE = `
  (() => {
    const encode = (key, value) => {
      if (typeof value === 'bigint') {
        return (value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)) ?
            Number(value) : {bigint: value.toString()};
      }
      if (typeof value === 'number' && !Number.isFinite(value)) {
        return Number.isNaN(value) ? 'NaN' : (value > 0 ? 'Infinity' : '-Infinity');
      }
      if (ArrayBuffer.isView(value)) return Array.from(value);
      return value;
    };
    const known = globalThis.__knownTolerances;
    const describe = (fn) => {
      if (typeof fn !== 'function') return {name: String(fn)};
      for (const name of Object.keys(known)) {
        if (known[name] === fn) return {name, from: 'utils.js'};
      }
      return {name: fn.name || '', source: Function.prototype.toString.call(fn)};
    };
    // A file's own tolerance function, applied to each case as WPT would
    // (utils.js passes the graph and the operands built; none are built here).
    const perCase = (fn, test) => {
      try {
        const t = fn(JSON.parse(JSON.stringify(test.graph, encode)), {});
        const metric = t && (t.metric || t.metricType);  // older files say metricType
        const value = Number(t && t.value);
        return ((metric === 'ULP' || metric === 'ATOL') && Number.isFinite(value)) ? {metric, value} : null;
      } catch (e) {
        return null;
      }
    };
    return JSON.stringify({calls: __calls.map((call) => {
      const tolerance = describe(call.toleranceFunc);
      const tests = Array.isArray(call.tests) ? call.tests : [];
      return {
        tests,
        tolerance,
        caseTolerances: tolerance.source ? tests.map((t) => perCase(call.toleranceFunc, t)) : [],
      };
    })}, encode);
  })()
`;

function knownTolerances(scripts) {
  // The tolerance functions utils.js declares, by name, so that a file passing
  // one is recorded by that name instead of by its text.
  const names = new Set();
  for (const script of scripts) {
    for (const m of script.text.matchAll(/(?:const|let|var|function)\s+(get\w*Tolerance)\b/g)) {
      names.add(m[1]);
    }
  }
  return `globalThis.__knownTolerances = {${[...names].map(
      (n) => `${n}: typeof ${n} === 'function' ? ${n} : undefined`).join(', ')}};`;
}

function run(request) {
  const context = vm.createContext(Object.create(null), {
    codeGeneration: {strings: false, wasm: false},
    microtaskMode: 'afterEvaluate',
  });
  const timeout = request.timeoutMs;
  const inContext = (code, filename) => vm.runInContext(code, context, {filename, timeout});
  inContext(PAGE, 'page');
  inContext(STANDARD, 'standard');
  for (const script of request.scripts) inContext(script.text.replace(RECORDABLE, 'var$1'), script.name);
  inContext(knownTolerances(request.scripts), 'tolerances');
  inContext(RECORDER, 'recorder');
  inContext(request.test.text, request.test.name);
  return inContext(SERIALISE, 'serialise');
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  let out;
  try {
    out = run(JSON.parse(input));
  } catch (e) {
    // One line: the error's name and message, never its stack (it names our paths).
    const what = (e && e.message !== undefined) ? `${e.name || 'Error'}: ${e.message}` : String(e);
    out = JSON.stringify({error: what.split('\n')[0]});
  }
  process.stdout.write(out);
});
