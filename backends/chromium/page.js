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

  // ---- the bench: a variant's timed loop in the page -------------------------
  // harness/bench/measure.py's algorithm with the harness's TimingPolicy,
  // timed with performance.now() around the WebNN calls alone; the harness
  // keeps the per-call seconds of each sample (backends/chromium/bench.py
  // says which calls each plan times).
  const benches = new Map();  // id -> {ml, call, wait, minBlock, outputs, made}
  let benchCount = 0;

  const readAll = async (ml, tensors, names) => {
    const out = {};
    for (const name of names) out[name] = new Uint8Array(await ml.readTensor(tensors[name]));
    return out;
  };

  // Each part's inputs and outputs as MLTensors; a name two parts share is
  // one tensor. Usages as a page would ask: writable where the plan writes
  // the tensor (a part's input), readable where it reads it (a part's output,
  // or the input an upload's wait reads).
  const partTensors = async (ml, parts, made, plan) => {
    const tensors = {};
    const written = new Set(parts.flatMap((p) => p.payload.inputs.map((d) => d.name)));
    const read = new Set(parts.flatMap((p) => p.payload.outputs.map((d) => d.name)));
    if (plan === 'upload') written.forEach((name) => read.add(name));
    const tensor = async (d) => {
      if (!tensors[d.name]) {
        tensors[d.name] = await ml.createTensor({...descriptor(d), readable: read.has(d.name), writable: written.has(d.name)});
        made.push(tensors[d.name]);
      }
      return tensors[d.name];
    };
    const bound = [];
    for (const part of parts) {
      const ins = {}, outs = {};
      for (const d of part.payload.inputs) ins[d.name] = await tensor(d);
      for (const d of part.payload.outputs) outs[d.name] = await tensor(d);
      bound.push({graph: part.graph, payload: part.payload, ins, outs});
    }
    return {tensors, bound};
  };

  // The plans (one call each = one step of the variant):
  //   perOp     per part: writeTensor of its inputs from host bytes, dispatch,
  //             readTensor of its outputs into host bytes
  //   chain     writeTensor of the graph's inputs, dispatch of every part,
  //             readTensor of the graph's outputs
  //   dispatch  dispatch of every part on tensors written once; a sample ends
  //             with one readTensor of the graph's first output (the wait)
  //   upload    writeTensor of the input; a sample ends with one readTensor (the wait)
  //   download  readTensor of an output dispatched once
  const plans = {
    perOp: (ml, bound, tensors, host, outputs) => ({
      call: async () => {
        for (const part of bound) {
          for (const name in part.ins) ml.writeTensor(part.ins[name], host[name]);
          ml.dispatch(part.graph, part.ins, part.outs);
          for (const name in part.outs) host[name] = new Uint8Array(await ml.readTensor(part.outs[name]));
        }
      },
      result: async () => Object.fromEntries(outputs.map((n) => [n, host[n]])),
    }),
    chain: (ml, bound, tensors, host, outputs, inputs) => {
      let last;
      return {
        call: async () => {
          for (const name of inputs) ml.writeTensor(tensors[name], host[name]);
          for (const part of bound) ml.dispatch(part.graph, part.ins, part.outs);
          last = await readAll(ml, tensors, outputs);
        },
        result: async () => last,
      };
    },
    dispatch: (ml, bound, tensors, host, outputs, inputs) => {
      for (const name of inputs) ml.writeTensor(tensors[name], host[name]);
      return {
        call: async () => { for (const part of bound) ml.dispatch(part.graph, part.ins, part.outs); },
        wait: async () => { await ml.readTensor(tensors[outputs[0]]); },
        result: async () => readAll(ml, tensors, outputs),
      };
    },
    upload: (ml, bound, tensors, host, outputs, inputs) => ({
      call: async () => { ml.writeTensor(tensors[inputs[0]], host[inputs[0]]); },
      wait: async () => { await ml.readTensor(tensors[inputs[0]]); },
      result: async () => {
        ml.writeTensor(tensors[inputs[0]], host[inputs[0]]);
        for (const part of bound) ml.dispatch(part.graph, part.ins, part.outs);
        return readAll(ml, tensors, outputs);
      },
    }),
    download: (ml, bound, tensors, host, outputs, inputs) => {
      for (const name of inputs) ml.writeTensor(tensors[name], host[name]);
      for (const part of bound) ml.dispatch(part.graph, part.ins, part.outs);
      return {
        call: async () => { await ml.readTensor(tensors[outputs[0]]); },
        result: async () => readAll(ml, tensors, outputs),
      };
    },
  };

  // One block of ``number`` calls (and the plan's wait): seconds per call.
  const timeBlock = async (bench, number) => {
    const t0 = performance.now();
    for (let i = 0; i < number; i++) await bench.call();
    if (bench.wait) await bench.wait();
    return (performance.now() - t0) / 1000 / number;
  };

  // harness/bench/measure.py's warm_up + measure, with its TimingPolicy.
  const measure = async (bench, policy) => {
    const end = performance.now() + policy.warmupTime * 1000;
    let single;
    do { single = await timeBlock(bench, 1); } while (performance.now() < end);
    let number = single < policy.minSampleTime ? Math.floor(policy.minSampleTime / Math.max(single, 1e-9)) + 1 : 1;
    // A plan that waits at a sample's end times a block of calls, so the wait
    // is amortised: up to minBlock calls, as many as still leave minSamples
    // samples in minTime.
    const fits = Math.floor(policy.minTime / (policy.minSamples * Math.max(single, 1e-9)));
    if (bench.wait) number = Math.max(number, Math.min(bench.minBlock, fits));
    const times = [];
    let spent = 0;
    for (;;) {
      const perCall = await timeBlock(bench, number);
      times.push(perCall);
      spent += perCall * number;
      if (spent >= policy.minTime && times.length >= policy.minSamples) return {times, number, stoppedBy: 'minimums'};
      if (times.length >= policy.maxSamples) return {times, number, stoppedBy: 'maxSamples'};
      if (spent >= policy.maxTime) return {times, number, stoppedBy: 'maxTime'};
    }
  };

  const releaseBench = (id) => {
    const bench = benches.get(id);
    if (!bench) return;
    for (const thing of bench.made) thing.destroy();
    benches.delete(id);
  };

  window.webnnHarness = {
    // spec: {plan, parts: [graph payload], inputs: [names], outputs: [names],
    // feeds: {name: tensor value}, minBlock}. Answers {id, buildSeconds} or {error}.
    async benchPrepare(deviceType, spec) {
      const at = {stage: 'createContext'};
      const made = [];
      try {
        const ml = await context(deviceType);
        const t0 = performance.now();
        const parts = [];
        for (const payload of spec.parts) {
          const graph = await buildGraph(ml, payload, at);
          made.push(graph);
          parts.push({graph, payload});
        }
        const buildSeconds = (performance.now() - t0) / 1000;
        at.stage = 'createTensor';
        const {tensors, bound} = await partTensors(ml, parts, made, spec.plan);
        const host = {};
        const descs = Object.fromEntries(spec.parts.flatMap((p) => p.inputs).map((d) => [d.name, d]));
        for (const name of spec.inputs) host[name] = await tensorBytes(spec.feeds[name], descs[name].dataType, descs[name].shape);
        at.stage = 'plan';
        const plan = plans[spec.plan](ml, bound, tensors, host, spec.outputs, spec.inputs);
        const outputs = spec.outputs.map((name) => spec.parts.flatMap((p) => p.outputs).find((d) => d.name === name));
        benches.set(++benchCount, {ml, made, outputs, minBlock: spec.minBlock, ...plan});
        return {id: benchCount, buildSeconds};
      } catch (e) {
        for (const thing of made) thing.destroy();
        return {error: {name: e && e.name || typeof e, message: String(e && e.message || e), stage: at.stage}};
      }
    },
    // One step of the bench (one call and its wait): its outputs, to verify.
    async benchStep(id) {
      const bench = benches.get(id);
      await bench.call();
      if (bench.wait) await bench.wait();
      const out = await bench.result();
      const values = {};
      for (const d of bench.outputs) values[d.name] = encodeTensor(out[d.name].buffer, d.dataType, d.shape);
      return values;
    },
    async benchMeasure(id, policy) {
      return {...await measure(benches.get(id), policy), crossOriginIsolated: self.crossOriginIsolated};
    },
    benchRelease(id) {
      releaseBench(id);
    },

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
