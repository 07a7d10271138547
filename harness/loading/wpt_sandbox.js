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
// URLSearchParams; only ECMAScript's built-ins and the few names WPT's page
// would give the scripts (location, navigator without ml, testharness.js's
// functions as no-ops), each defined inside the context. Strings are never
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
                      'assert_implements', 'assert_unreached', 'promise_rejects_js']) {
    globalThis[name] = function() {};
  }
`;

// Both of utils.js's signatures: today's (tests, buildFunc, toleranceFunc), called once per file,
// and the older (buildFunc, toleranceFunc, test), called once per case. Older files name build
// functions today's utils.js no longer has; the recorder never calls one, so a stand-in will do.
const RECORDER = `
  globalThis.__calls = [];
  globalThis.webnn_conformance_test = function(first, second, third) {
    if (typeof first === 'function') {
      __calls.push({tests: [third], toleranceFunc: second});
    } else {
      __calls.push({tests: first, toleranceFunc: third});
    }
  };
  if (typeof buildGraphAndCompute === 'undefined') globalThis.buildGraphAndCompute = function() {};
  if (typeof buildAndExecuteGraph === 'undefined') globalThis.buildAndExecuteGraph = function() {};
`;

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
  for (const script of request.scripts) inContext(script.text, script.name);
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
