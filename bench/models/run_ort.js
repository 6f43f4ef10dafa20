// One ONNX model in ONNX Runtime (CPU, 2 intra-op threads, sequential,
// every graph optimization), timed as bench/models/model_bench.c times grt:
//   NODE_PATH=<folder holding onnxruntime-node> node run_ort.js MODEL.onnx IN.npy
//       [--output OUT.npy] [--warmup N] [--runs N] [--seconds S] [--serve]
// Prints the session creation time (it includes ORT's graph optimization,
// grt's counterpart is load + session), the first run, min and median per
// run of --runs (default 10, continuing until --seconds have passed), and
// one line for run.sh:
//   RESULT create_ms=C first_run_ms=F min_ms=M median_ms=D runs=N
// --serve: after the warm-up, reads a count K per line on stdin and answers
// "TIMES t1 ... tK" (ms) for K runs, until stdin ends, as model_bench
// --serve does (bench/models/ab.py drives either).
// --output writes the first run's output as .npy. Exit status 1 when the
// model fails, 2 for a bad argument or a missing onnxruntime-node.
'use strict';
const fs = require('fs');

const usage = 'usage: node run_ort.js MODEL.onnx IN.npy [--output OUT.npy] [--warmup N] ' +
              '[--runs N] [--seconds S] [--serve]';

function fail(status, msg) {
  console.error(`run_ort.js: ${msg}`);
  if (status === 2) console.error(usage);
  process.exit(status);
}

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  fail(2, `cannot load onnxruntime-node (${e.message.split('\n')[0]}): set NODE_PATH to the ` +
          'node_modules folder that holds it (here: /work/ort/node_modules)');
}

function parseArgs(argv) {
  const a = {warmup: 2, runs: 10, seconds: 0, output: null, serve: false, pos: []};
  const number = (flag, v, lo, hi, integer) => {
    const n = Number(v);
    if (v === undefined || v === '' || !Number.isFinite(n) || n < lo || n > hi ||
        (integer && !Number.isInteger(n)))
      fail(2, `${flag} '${v}': expected ${integer ? 'an integer' : 'a number'} from ${lo} to ${hi}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--output') a.output = argv[++i];
    else if (arg === '--warmup') a.warmup = number(arg, argv[++i], 0, 10000, true);
    else if (arg === '--runs') a.runs = number(arg, argv[++i], 1, 10000, true);
    else if (arg === '--seconds') a.seconds = number(arg, argv[++i], 0, 3600, false);
    else if (arg === '--serve') a.serve = true;
    else if (arg.startsWith('-')) fail(2, `unknown argument '${arg}'`);
    else a.pos.push(arg);
  }
  if (a.pos.length !== 2) fail(2, 'expected MODEL.onnx and IN.npy');
  if (a.output === undefined) fail(2, '--output needs a value');
  return a;
}

// .npy of float32, little-endian, C order (what export_models.py writes).
function readNpy(path) {
  const b = fs.readFileSync(path);
  if (b.length < 10 || b.toString('latin1', 1, 6) !== 'NUMPY') fail(1, `${path}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  if (!/'descr': *'<f4'/.test(header) || /'fortran_order': *True/.test(header))
    fail(1, `${path}: only little-endian C-order float32 is read here (header ${header.trim()})`);
  const dims = header.match(/'shape': *\(([^)]*)\)/)[1].split(',').map((s) => s.trim())
                   .filter((s) => s.length).map(Number);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + start + hlen, b.byteOffset + b.length));
  return new ort.Tensor('float32', data, dims);
}

function writeNpy(path, t) {
  if (t.type !== 'float32') fail(1, `output of type ${t.type}: only float32 is written`);
  const shape = t.dims.map((d) => `${d},`).join(' ');
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape}), }`;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 0xff, h.length >> 8]);
  fs.writeFileSync(path, Buffer.concat([pre, Buffer.from(h, 'latin1'),
                                        Buffer.from(t.data.buffer, t.data.byteOffset,
                                                    t.data.byteLength)]));
}

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

(async () => {
  const a = parseArgs(process.argv.slice(2));
  const [model, input] = a.pos;
  const opts = {intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: 'sequential',
                graphOptimizationLevel: 'all'};
  const x = readNpy(input);
  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, opts);
  const create = ms(t0);
  const feeds = {[session.inputNames[0]]: x};
  const out = session.outputNames[0];
  t0 = process.hrtime.bigint();
  const first = await session.run(feeds);
  const firstRun = ms(t0);
  if (a.output) writeNpy(a.output, first[out]);
  for (let i = 0; i < a.warmup; i++) await session.run(feeds);
  if (a.serve) {
    const lines = require('readline').createInterface({input: process.stdin});
    for await (const line of lines) {
      let k = parseInt(line, 10);
      if (!(k >= 1 && k <= 10000)) k = 1;
      const t = [];
      for (let i = 0; i < k; i++) {
        t0 = process.hrtime.bigint();
        await session.run(feeds);
        t.push(ms(t0).toFixed(4));
      }
      process.stdout.write(`TIMES ${t.join(' ')}\n`);
    }
    return;
  }
  const times = [];
  const start = process.hrtime.bigint();
  while (times.length < 10000 && (times.length < a.runs || ms(start) < a.seconds * 1e3)) {
    t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(ms(t0));
  }
  times.sort((p, q) => p - q);
  const n = times.length;
  const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  console.log(`${model}: ORT ${ort.env.versions.common}: create session ${create.toFixed(1)} ms, ` +
              `first run ${firstRun.toFixed(1)} ms`);
  console.log(`${model}: ${n} runs: min ${times[0].toFixed(3)} ms, median ${median.toFixed(3)} ms`);
  console.log(`RESULT create_ms=${create.toFixed(3)} first_run_ms=${firstRun.toFixed(3)} ` +
              `min_ms=${times[0].toFixed(4)} median_ms=${median.toFixed(4)} runs=${n}`);
})().catch((e) => fail(1, `${process.argv[2]}: ${String(e.message || e).split('\n')[0]}`));
