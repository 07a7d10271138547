// Judge backend outputs with WPT's own webnn/resources/utils.js, under node.
//
//   node tools/wpt_rule_check.js UTILS_JS < cases.jsonl > verdicts.jsonl
//
// Each input line: {"id", "graph": WPT's graphResources (inputs, operators,
// expectedOutputs) as the case file holds them, "actual": {output: {"dataType",
// "data"}}, "fileFunction": {"metricType", "value"} | null}. "fileFunction" stands
// for the WPT file's own tolerance function where it has one (utils.js does not
// hold those); otherwise utils.js's getPrecisionTolerance is called. The actual
// outputs are laid out as utils.js receives them from MLContext.readTensor:
// float16 as Uint16Array bit patterns, 64-bit integers as BigInt arrays, int4 and
// uint4 packed two per byte. Each output line: {"id", "status": "pass"|"fail", "message"}.
//
// utils.js is evaluated as it is, with testharness.js's assertions as
// testharness.js writes them (assert_array_approx_equals: |a - e| <= epsilon;
// assert_less_than_equal: same types, then <=; assert_equals: same_value). No WPT
// code is copied here.
'use strict';

const fs = require('fs');
const vm = require('vm');
const readline = require('readline');

class AssertionError extends Error {}

function sameValue(x, y) {
  if (y !== y) return x !== x;
  if (x === 0 && y === 0) return 1 / x === 1 / y;
  return x === y;
}

const harness = {
  AssertionError,
  assert_true: (v, d) => { if (v !== true) throw new AssertionError(`assert_true: ${d}`); },
  assert_equals: (a, e, d) => { if (!sameValue(a, e)) throw new AssertionError(`assert_equals: ${d}: ${a} != ${e}`); },
  assert_less_than_equal: (a, e, d) => {
    if (!(typeof a === 'number' || typeof a === 'bigint')) throw new AssertionError(`assert_less_than_equal: ${d}: not a number`);
    if (typeof a !== typeof e) throw new AssertionError(`assert_less_than_equal: ${d}: expected a ${typeof e} but got a ${typeof a}`);
    if (!(a <= e)) throw new AssertionError(`${d} expected a number less than or equal to ${e} but got ${a}`);
  },
  assert_array_approx_equals: (actual, expected, epsilon, d) => {
    if (actual.length !== expected.length) throw new AssertionError(`${d}: lengths differ`);
    for (let i = 0; i < actual.length; i++) {
      if (typeof actual[i] !== 'number') throw new AssertionError(`${d}: property ${i} is not a number`);
      if (!(Math.abs(actual[i] - expected[i]) <= epsilon)) {
        throw new AssertionError(`${d}: property ${i}, expected ${expected[i]} +/- ${epsilon} but got ${actual[i]}`);
      }
    }
  },
};

const context = vm.createContext({
  ...harness, location: {search: ''}, URLSearchParams, navigator: {}, console, Math, BigInt,
});
vm.runInContext(fs.readFileSync(process.argv[2], 'utf8') +
    '\n;globalThis.__utils = {assertResultsEquals, getPrecisionTolerance};', context);
const utils = context.__utils;

function decode(value) {
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  if (value && typeof value === 'object' && 'bigint' in value) return BigInt(value.bigint);
  if (Array.isArray(value)) return value.map(decode);
  return value;
}

function decodeGraph(graph) {
  const out = JSON.parse(JSON.stringify(graph));
  for (const group of ['inputs', 'expectedOutputs']) {
    for (const operand of Object.values(out[group] || {})) {
      operand.data = decode(operand.data);
      if (operand.descriptor && operand.descriptor.dimensions && !operand.descriptor.shape) {
        operand.descriptor.shape = operand.descriptor.dimensions;
      }
    }
  }
  return out;
}

const ARRAYS = {
  float32: Float32Array, float16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int8: Int8Array, uint8: Uint8Array, int4: Uint8Array, uint4: Uint8Array,
};

function actualArray({dataType, data}) {
  if (dataType === 'int64') return BigInt64Array.from(data.map(BigInt));
  if (dataType === 'uint64') return BigUint64Array.from(data.map(BigInt));
  return ARRAYS[dataType].from(data.map(decode));
}

const rl = readline.createInterface({input: process.stdin});
rl.on('line', (line) => {
  if (!line.trim()) return;
  const item = JSON.parse(line);
  const graph = decodeGraph(item.graph);
  const actual = {};
  for (const [name, output] of Object.entries(item.actual)) actual[name] = actualArray(output);
  const tolerance = item.fileFunction ? () => item.fileFunction : utils.getPrecisionTolerance;
  let status = 'pass', message = '';
  try {
    utils.assertResultsEquals(tolerance, actual, graph, item.intermediateOperands || {});
  } catch (e) {
    status = 'fail';
    message = String(e && e.message || e);
  }
  process.stdout.write(JSON.stringify({id: item.id, status, message}) + '\n');
});
