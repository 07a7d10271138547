'use strict';
// The chromium backend's page: builds each case's graph with MLGraphBuilder
// as WPT's webnn/resources/utils.js does (constants with builder.constant(),
// the other inputs with builder.input() and fed through MLTensor with
// writeTensor, every output read back with readTensor), many cases per call.
// Every WebNN exception is kept with its name, message and the stage that
// threw it: the Python side classifies it (backends/chromium/__init__.py).
(() => {
  const TYPED_ARRAYS = {
    float32: Float32Array,
    // WPT's workaround where Float16Array is missing: float16 as its bits.
    float16: typeof Float16Array === 'function' ? Float16Array : Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    int64: BigInt64Array,
    uint64: BigUint64Array,
    int8: Int8Array,
    uint8: Uint8Array,
    // Chromium takes int4 and uint4 packed two a byte.
    int4: Uint8Array,
    uint4: Uint8Array,
  };
  const contexts = new Map();  // deviceType -> {context, lost}

  const fromBase64 = (text) => {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  };

  const toBase64 = (bytes) => {
    if (bytes.toBase64) return bytes.toBase64();
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  };

  // Views by element width, to repeat or compare elements as bit patterns.
  const BITS = {1: Uint8Array, 2: Uint16Array, 4: Uint32Array, 8: BigUint64Array};
  const UNIFORM_MIN = 1024;  // elements: as harness/spec/uniform.py's MIN_ELEMENTS

  const elementCount = (shape) => shape.reduce((a, b) => a * b, 1);

  // A tensor's bytes: base64, {fill: base64 of one element} repeated, or
  // {fetch: path} on the loopback server that served this page.
  const tensorBytes = async (value, dataType, shape) => {
    if (typeof value === 'string') return fromBase64(value);
    if (value.fetch) return new Uint8Array(await (await fetch(value.fetch)).arrayBuffer());
    const one = fromBase64(value.fill);
    const Bits = BITS[one.byteLength];
    const bytes = new Uint8Array(one.byteLength * elementCount(shape));
    new Bits(bytes.buffer).fill(new Bits(one.buffer)[0]);
    return bytes;
  };

  // Outputs larger than this stay in the page, taken back a chunk a call:
  // one string of hundreds of MB exhausts the Playwright driver's heap.
  const HELD_BYTES = 16 << 20;
  const held = new Map();
  let heldCount = 0;

  const encodeTensor = (buffer, dataType, shape) => {
    const bytes = new Uint8Array(buffer);
    const count = elementCount(shape);
    const width = count ? bytes.byteLength / count : 0;
    if (count >= UNIFORM_MIN && BITS[width]) {
      const bits = new BITS[width](buffer);
      const first = bits[0];
      let i = 1;
      while (i < bits.length && bits[i] === first) i++;
      if (i === bits.length) return {fill: toBase64(bytes.subarray(0, width))};
    }
    if (bytes.byteLength > HELD_BYTES) {
      held.set(++heldCount, bytes);
      return {held: heldCount, byteLength: bytes.byteLength};
    }
    return toBase64(bytes);
  };

  const typedArray = async (dataType, value, shape) => {
    const bytes = await tensorBytes(value, dataType, shape);
    const Type = TYPED_ARRAYS[dataType];
    return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
  };

  const NUMBERS = {NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity};

  // An argument or option: {"$operand": name} is that MLOperand, {"$number"}
  // a number JSON cannot hold, {"$bigint"} an integer beyond 2^53.
  const resolve = (value, operands) => {
    if (Array.isArray(value)) return value.map((v) => resolve(v, operands));
    if (value === null || typeof value !== 'object') return value;
    if ('$operand' in value) return operands[value.$operand];
    if ('$number' in value) return NUMBERS[value.$number];
    if ('$bigint' in value) return BigInt(value.$bigint);
    const out = {};
    for (const [key, v] of Object.entries(value)) out[key] = resolve(v, operands);
    return out;
  };

  const context = async (deviceType) => {
    const known = contexts.get(deviceType);
    if (known && !known.lost) return known.context;
    const entry = {context: await navigator.ml.createContext({deviceType}), lost: false};
    entry.context.lost.then(() => { entry.lost = true; });
    contexts.set(deviceType, entry);
    return entry.context;
  };

  const descriptor = (d) => ({dataType: d.dataType, shape: d.shape});

  const buildGraph = async (ml, graph, at) => {
    const builder = new MLGraphBuilder(ml);
    const operands = {};
    at.stage = 'builder.input';
    for (const input of graph.inputs) operands[input.name] = builder.input(input.name, descriptor(input));
    at.stage = 'builder.constant';
    for (const constant of graph.constants) {
      operands[constant.name] = builder.constant(descriptor(constant), await typedArray(constant.dataType, constant.data, constant.shape));
    }
    for (const node of graph.nodes) {
      at.stage = `builder.${node.op}`;
      const args = node.args.map((a) => resolve(a, operands));
      const result = builder[node.op](...args, resolve(node.options, operands));
      const results = Array.isArray(result) ? result : [result];
      node.outputs.forEach((name, i) => { operands[name] = results[i]; });
    }
    at.stage = 'build';
    const named = {};
    for (const output of graph.outputs) named[output.name] = operands[output.name];
    return builder.build(named);
  };

  const runCase = async (deviceType, item) => {
    const at = {stage: 'createContext'};
    const made = [];
    try {
      const ml = await context(deviceType);
      const graph = await buildGraph(ml, item.graph, at);
      made.push(graph);
      at.stage = 'createTensor';
      const inputs = {};
      for (const input of item.graph.inputs) {
        inputs[input.name] = await ml.createTensor({...descriptor(input), writable: true});
        made.push(inputs[input.name]);
      }
      const outputs = {};
      for (const output of item.graph.outputs) {
        outputs[output.name] = await ml.createTensor({...descriptor(output), readable: true});
        made.push(outputs[output.name]);
      }
      at.stage = 'writeTensor';
      for (const input of item.graph.inputs) ml.writeTensor(inputs[input.name], await tensorBytes(item.feeds[input.name], input.dataType, input.shape));
      at.stage = 'dispatch';
      ml.dispatch(graph, inputs, outputs);
      at.stage = 'readTensor';
      const values = {};
      for (const output of item.graph.outputs) {
        values[output.name] = encodeTensor(await ml.readTensor(outputs[output.name]), output.dataType, output.shape);
      }
      return {outputs: values};
    } catch (e) {
      return {error: {name: e && e.name || typeof e, message: String(e && e.message || e), stage: at.stage}};
    } finally {
      for (const thing of made) thing.destroy();
    }
  };

  window.webnnHarness = {
    async runCases(deviceType, items) {
      await context(deviceType);  // one context for the call, made before the cases start together
      return Promise.all(items.map((item) => runCase(deviceType, item)));
    },
    take(id, offset, size) {
      return toBase64(held.get(id).subarray(offset, offset + size));
    },
    release(id) {
      held.delete(id);
    },
    async opSupportLimits(deviceType) {
      const ml = await context(deviceType);
      return ml.opSupportLimits();
    },
  };
})();
