// Times bench/ort/*.onnx in ONNX Runtime (CPU, 2 intra-op threads), best of
// several runs, printing the same figures bench/exec_bench.c prints.
//   NODE_PATH=<dir with onnxruntime-node> node run_ort.js MODEL_DIR [mlp]
// mlp: the MLP alone (bench/compare_ort.sh times it in turn with grt's).
const ort = require('onnxruntime-node');
const dir = process.argv[2] || '.';
const mlpOnly = process.argv[3] === 'mlp';

async function best(session, feeds, repeats) {
  return (await timed(session, feeds, repeats)).min;
}

// The min per run, and the mean over the loop's wall time (what a
// `grt run --steps` figure is: a step count's wall time over the steps).
async function timed(session, feeds, repeats) {
  let min = Infinity;
  const start = process.hrtime.bigint();
  for (let i = 0; i < repeats; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    const t = Number(process.hrtime.bigint() - t0) / 1e9;
    if (t < min) min = t;
  }
  return {min, mean: Number(process.hrtime.bigint() - start) / 1e9 / repeats};
}

function random(n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.random() * 0.2 - 0.1;
  return a;
}

(async () => {
  const opts = {intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all'};
  if (!mlpOnly) await chainAndMatMul(opts);
  await mlpRuns(opts);
  if (!mlpOnly) await cifarRuns(opts);
})().catch((e) => { console.error(e); process.exit(1); });

async function chainAndMatMul(opts) {
  let create = 1e30;
  for (let r = 0; r < 3; r++) {
    const t0 = process.hrtime.bigint();
    await ort.InferenceSession.create(`${dir}/chain.onnx`, opts);
    const dt = Number(process.hrtime.bigint() - t0) / 1e9;
    if (dt < create) create = dt;
  }
  console.log(`ort chain of 10000 scalar Adds, create session: ${(create * 1e3).toFixed(2)} ms`);
  const chain = await ort.InferenceSession.create(`${dir}/chain.onnx`, opts);
  const x = {x: new ort.Tensor('float32', random(1), [])};
  await best(chain, x, 3);
  const tc = await best(chain, x, 20);
  console.log(`ort chain of 10000 scalar Adds: ${(tc * 1e3).toFixed(3)} ms per run, ` +
              `${(tc * 1e9 / 10000).toFixed(0)} ns per node`);

  const mm = await ort.InferenceSession.create(`${dir}/matmul.onnx`, opts);
  const a = {a: new ort.Tensor('float32', random(1024 * 1024), [1024, 1024])};
  await best(mm, a, 2);
  const tm = await best(mm, a, 10);
  console.log(`ort MatMul 1024x1024x1024: ${(2 * 1024 ** 3 / tm * 1e-9).toFixed(1)} GFLOP/s`);
}

async function mlpRuns(opts) {
  const mlp = await ort.InferenceSession.create(`${dir}/mlp.onnx`, opts);
  for (const batch of [1, 256]) {
    const f = {x: new ort.Tensor('float32', random(batch * 784), [batch, 784])};
    await best(mlp, f, 10);
    const t = await timed(mlp, f, batch === 1 ? 2000 : 200);
    console.log(`ort MLP 784-256-256-10 + softmax, batch ${String(batch).padStart(3)}: ` +
                `${(t.min * 1e6).toFixed(1)} us per run (mean ${(t.mean * 1e6).toFixed(1)} us)`);
  }
}

async function cifarRuns(opts) {
  const cifar = await ort.InferenceSession.create(`${dir}/cifar.onnx`, opts);
  for (const batch of [1, 64]) {
    const f = {images: new ort.Tensor('float32', random(batch * 3 * 24 * 24), [batch, 3, 24, 24])};
    await best(cifar, f, 3);
    const t = await best(cifar, f, batch === 1 ? 200 : 10);
    console.log(`ort CIFAR-10 conv net, batch ${String(batch).padStart(2)}: ${(t * 1e6).toFixed(1)} us per run`);
  }
}
