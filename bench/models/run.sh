#!/usr/bin/env bash
# Real models in grt beside ONNX Runtime and PyTorch, in one sitting.
#
#   bash bench/models/run.sh [--models a,b,...] [--batches 1,8] [--rounds R] [--seconds S]
#                            [--opset 17|13] [--scratch DIR] [--tol T]
#                            [--no-rewrite] [--option KEY=VALUE]... [--prebuilt]
#
# 1. Exports the models (export_models.py; cached in DIR/opsetK, default
#    /tmp/grt-models) and converts each with `grt convert` to .grt, timed.
# 2. For each model and batch (default 1 and 8), R rounds (default 3) of
#    grt (model_bench on the .grt), ONNX Runtime (run_ort.js), PyTorch
#    (run_torch.py), interleaved: grt, ORT, torch, grt, ORT, torch, ... so
#    that a change of load hits all three alike. Each tool runs a warm-up,
#    then at least 3 runs and at least S seconds (default 1) per round; its
#    figures are the min over the rounds and the median of the rounds'
#    medians. Every tool uses 2 threads.
# 3. Checks grt's output (its first round's first run) against ONNX
#    Runtime's and PyTorch's: max abs and relative difference (compare.py),
#    a mismatch above T (default 1e-4) marked ACCURACY FAIL.
# 4. Prints one table: model, batch, min/median of each, grt/ORT and
#    grt/torch (medians); then per model the conversion time and grt's load
#    + session + first run beside ORT's session creation + first run.
# The load average is printed at the start and the end; above 1.5 the
# figures are printed but marked as no claim.
#
# --no-rewrite and --option KEY=VALUE go to grt's sessions (model_bench).
# --prebuilt: the binaries a previous run copied into DIR/bin, no Bazel (for
# a sitting with the host's other processes paused).
# Needs /usr/bin/python3 with torch and torchvision, node with
# onnxruntime-node (NODE_PATH, default /work/ort/node_modules), and Bazel to
# build //bench:model_bench and //tools:grt (-c opt).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

models="resnet18,mobilenet_v2,efficientnet_b0,vit_b_16,transformer"
batches="1,8"
rounds=3
seconds=1
opset=17
scratch=/tmp/grt-models
tol=1e-4
grt_opts=()
prebuilt=0

die() {
  echo "run.sh: $*" >&2
  exit 2
}
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi; }

while [ $# -gt 0 ]; do
  case "$1" in
    --models) need_value "$@"; models="$2"; shift 2 ;;
    --batches) need_value "$@"; batches="$2"; shift 2 ;;
    --rounds) need_value "$@"; rounds="$2"; shift 2 ;;
    --seconds) need_value "$@"; seconds="$2"; shift 2 ;;
    --opset) need_value "$@"; opset="$2"; shift 2 ;;
    --scratch) need_value "$@"; scratch="$2"; shift 2 ;;
    --tol) need_value "$@"; tol="$2"; shift 2 ;;
    --no-rewrite) grt_opts+=(--no-rewrite); shift ;;
    --option) need_value "$@"; grt_opts+=(--option "$2"); shift 2 ;;
    --prebuilt) prebuilt=1; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help lists them)" ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a positive integer"
[[ "$seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--seconds '$seconds': expected a number"
[[ "$batches" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--batches '$batches': expected e.g. 1,8"
for b in ${batches//,/ }; do
  [ "$b" = 1 ] || [ "$b" = 8 ] || die "--batches: the exporter writes inputs for batch 1 and 8 only"
done

py=/usr/bin/python3
export NODE_PATH="${NODE_PATH:-/work/ort/node_modules}"
here=bench/models
"$py" -c 'import numpy, torch, torchvision' 2>/dev/null ||
  die "$py cannot import numpy, torch and torchvision (Debian: apt-get install python3-torch python3-torchvision)"
command -v node >/dev/null || die "node is not installed (Debian: apt-get install nodejs)"
node -e "require('onnxruntime-node')" 2>/dev/null ||
  die "node cannot load onnxruntime-node from NODE_PATH=$NODE_PATH (npm install onnxruntime-node there)"
bin="$scratch/bin"
mkdir -p "$bin"
if [ "$prebuilt" = 0 ]; then
  bazel build -c opt //bench:model_bench //tools:grt >/dev/null 2>&1 ||
    die "bazel build -c opt //bench:model_bench //tools:grt failed (run it to see why)"
  # Copies: another build may repoint bazel-bin while this runs.
  cp -f bazel-bin/bench/model_bench bazel-bin/tools/grt "$bin/" || die "cannot copy the binaries to $bin"
fi
[ -x "$bin/model_bench" ] && [ -x "$bin/grt" ] || die "--prebuilt: no binaries in $bin (run once without it)"

d="$scratch/opset$opset"
work="$scratch/run"
mkdir -p "$d" "$work"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores online"
echo "load average at start: $load_start"
started=$(date +%s)

# shellcheck disable=SC2086
"$py" $here/export_models.py --out "$scratch" --opset "$opset" ${models//,/ } ||
  echo "run.sh: some exports failed (above); those models are left out"

# The value of KEY in a "RESULT k=v ..." line.
field() { sed -n "s/^RESULT .*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }
# The first line of a failure's message, for the table's notes.
first_error() { grep -v '^RESULT' "$1" | grep -m1 . | cut -c1-160; }

declare -A conv_ms grt_cold ort_cold note
declare -A mins meds # key "tool model batch": space-separated per-round figures
for m in ${models//,/ }; do
  [ -f "$d/$m.onnx" ] || { note[$m]="export failed"; continue; }
  t0=$(date +%s%N)
  if "$bin/grt" convert "$d/$m.onnx" "$d/$m.grt" >"$work/$m.convert.log" 2>&1; then
    conv_ms[$m]=$(( ($(date +%s%N) - t0) / 1000000 ))
  else
    rm -f "$d/$m.grt"
    note[$m]="grt convert: $(first_error "$work/$m.convert.log")"
  fi
done

run_tool() { # TOOL MODEL BATCH ROUND: runs one tool once, records its figures
  local tool=$1 m=$2 b=$3 r=$4 log="$work/$1.$2.b$3.log" out=()
  local in="$d/$m.b$b.in.npy" timing=(--warmup 1 --runs 3 --seconds "$seconds")
  [ "$r" = 1 ] && out=(--output "$work/$m.b$b.$tool.npy")
  case $tool in
    grt) if [ ! -f "$d/$m.grt" ]; then
        [ "$r" = 1 ] && echo "  grt $m batch $b: not run (it did not convert: below)"
        return 1
      fi
      # The quiet machine's wait policy, whatever load the earlier runs left
      # (tools/blas_threads.h; bench/models/ab.py says why).
      if [ -n "${OMP_WAIT_POLICY:-}" ]; then
        "$bin/model_bench" "$d/$m.grt" --input "$in" "${out[@]}" "${timing[@]}" \
          "${grt_opts[@]}" >"$log" 2>&1
      else
        GOMP_SPINCOUNT="${GOMP_SPINCOUNT:-10000}" "$bin/model_bench" "$d/$m.grt" --input "$in" \
          "${out[@]}" "${timing[@]}" "${grt_opts[@]}" >"$log" 2>&1
      fi ;;
    ort) node $here/run_ort.js "$d/$m.onnx" "$in" "${out[@]}" "${timing[@]}" >"$log" 2>&1 ;;
    torch) "$py" $here/run_torch.py "$m" "$in" "${timing[@]}" >"$log" 2>&1 ;;
  esac || {
    if [ "$r" = 1 ]; then
      echo "  $tool $m batch $b FAILED: $(first_error "$log")"
      [ "$tool" = grt ] && [ -z "${note[$m]:-}" ] && note[$m]="grt: $(first_error "$log")"
    fi
    return 1
  }
  local line
  line=$(grep '^RESULT' "$log")
  mins[$tool $m $b]+="$(field min_ms "$line") "
  meds[$tool $m $b]+="$(field median_ms "$line") "
  if [ "$r" = 1 ] && [ "$b" = "${batches%%,*}" ]; then
    case $tool in
      grt) grt_cold[$m]="$(field load_ms "$line") + $(field create_first_ms "$line")" ;;
      ort) ort_cold[$m]="$(field create_ms "$line") + $(field first_run_ms "$line")" ;;
    esac
  fi
}

declare -A failed # "tool model batch": failed once, not tried again
accuracy=()
for m in ${models//,/ }; do
  [ -f "$d/$m.onnx" ] || continue
  for b in ${batches//,/ }; do
    echo "== $m, batch $b: $rounds rounds of grt, ORT, torch"
    for r in $(seq "$rounds"); do
      for tool in grt ort torch; do
        [ -n "${failed[$tool $m $b]:-}" ] && continue
        run_tool $tool "$m" "$b" "$r" || failed[$tool $m $b]=1
      done
    done
    ref="$d/$m.b$b.torch.npy"
    for pair in "grt ort" "grt torch" "ort torch"; do
      read -r x y <<<"$pair"
      got="$work/$m.b$b.$x.npy"
      want="$work/$m.b$b.$y.npy"
      [ "$y" = torch ] && want="$ref"
      if [ -n "${failed[$x $m $b]:-}" ] || [ -n "${failed[$y $m $b]:-}" ]; then continue; fi
      if res=$("$py" $here/compare.py "$got" "$want" --tol "$tol"); then
        accuracy+=("$m b$b $x vs $y: $res")
      else
        accuracy+=("$m b$b $x vs $y: $res   <<<<<<<< ACCURACY FAIL (tolerance $tol)")
      fi
    done
  done
done

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
quiet=$(awk -v a="${load_start%% *}" -v b="${load_end%% *}" 'BEGIN { print (a <= 1.5 && b <= 1.5) }')

# min of a list, and median of a list
stat_min() { tr ' ' '\n' <<<"$1" | grep . | sort -g | head -1; }
stat_median() {
  tr ' ' '\n' <<<"$1" | grep . | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
fmt() { [ -n "$1" ] && printf '%.2f' "$1" || printf '%s' '-'; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }' || printf '%s' '-'; }

echo
echo "== accuracy (grt's first run against ORT's and PyTorch's; max_rel: max |diff| / max |ref|)"
printf '%s\n' "${accuracy[@]}"
echo
echo "== times, ms per run, min / median over $rounds interleaved rounds (>= 3 runs and ${seconds}s each)"
echo "   goal: every model <= 1.0x ORT at batch 1 and 8; grt options: ${grt_opts[*]:-(defaults)}"
if [ "$quiet" != 1 ]; then
  echo "   !!!! load average above 1.5 (start $load_start, end $load_end): NOT figures to claim !!!!"
fi
printf '%-18s %5s | %19s | %19s | %19s | %8s | %8s\n' model batch "grt min / median" \
  "ORT min / median" "torch min / median" grt/ORT grt/torch
for m in ${models//,/ }; do
  for b in ${batches//,/ }; do
    row=()
    declare -A md=()
    for tool in grt ort torch; do
      mn=$(stat_min "${mins[$tool $m $b]:-}")
      md[$tool]=$(stat_median "${meds[$tool $m $b]:-}")
      row+=("$(fmt "$mn") / $(fmt "${md[$tool]}")")
    done
    printf '%-18s %5s | %19s | %19s | %19s | %8s | %8s\n' "$m" "$b" "${row[0]}" "${row[1]}" \
      "${row[2]}" "$(ratio "${md[grt]}" "${md[ort]}")" "$(ratio "${md[grt]}" "${md[torch]}")"
  done
done
echo
echo "== cold figures, ms: grt convert (.onnx -> .grt); grt: load .grt + session and first run;"
echo "   ORT: create session (with its optimizer) + first run (batch ${batches%%,*}, round 1)"
for m in ${models//,/ }; do
  printf '%-18s convert %7s | grt %-22s | ORT %-22s %s\n' "$m" "${conv_ms[$m]:--}" \
    "${grt_cold[$m]:--}" "${ort_cold[$m]:--}" "${note[$m]:+  ($m: ${note[$m]})}"
done
echo
echo "load average at start: $load_start, at end: $load_end; $(( $(date +%s) - started )) s"
[ "$quiet" = 1 ] || echo "(load above 1.5: the figures above are not a claim)"
