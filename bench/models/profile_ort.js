// ONNX Runtime's own per-node profile of one model, for profile.py:
//   NODE_PATH=<folder holding onnxruntime-node> node profile_ort.js MODEL.onnx IN.npy PREFIX RUNS
// Runs the model RUNS times in the session run_ort.js times (CPU, 2
// intra-op threads, sequential, every graph optimization) with ORT's
// profiler on (enableProfiling), which writes PREFIX_<date>.json: Chrome
// trace events, one "Node" event per kernel, one
// "SequentialExecutor::Execute" per run. Exit status 1 when the model
// fails, 2 for a bad argument.
'use strict';
const fs = require('fs');

function fail(status, msg) {
  console.error(`profile_ort.js: ${msg}`);
  process.exit(status);
}

const [model, input, prefix, runsText] = process.argv.slice(2);
const runs = Number(runsText);
if (!prefix || !Number.isInteger(runs) || runs < 1)
  fail(2, 'usage: node profile_ort.js MODEL.onnx IN.npy PREFIX RUNS');
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  fail(2, `cannot load onnxruntime-node (${e.message.split('\n')[0]}): set NODE_PATH`);
}

// .npy of little-endian C-order float32, version 1 (what export_models.py writes).
function readNpy(path) {
  const b = fs.readFileSync(path);
  if (b.length < 10 || b.toString('latin1', 1, 6) !== 'NUMPY' || b[6] !== 1)
    fail(1, `${path}: not a version 1 .npy file`);
  const hlen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + hlen);
  if (!/'descr': *'<f4'/.test(header) || /'fortran_order': *True/.test(header))
    fail(1, `${path}: only little-endian C-order float32 is read here`);
  const dims = header.match(/'shape': *\(([^)]*)\)/)[1].split(',').map((s) => s.trim())
                   .filter((s) => s.length).map(Number);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length));
  return new ort.Tensor('float32', data, dims);
}

(async () => {
  const opts = {intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: 'sequential',
                graphOptimizationLevel: 'all', enableProfiling: true, profileFilePrefix: prefix};
  const session = await ort.InferenceSession.create(model, opts);
  const feeds = {[session.inputNames[0]]: readNpy(input)};
  for (let i = 0; i < runs; i++) await session.run(feeds);
  session.endProfiling();
})().catch((e) => fail(1, `${model}: ${String(e.message || e).split('\n')[0]}`));
