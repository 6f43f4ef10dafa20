#!/usr/bin/env bash
# The architecture sweep: which of the models a new user would try convert
# and run in grt, and whether they compute what PyTorch does.
#
#   bash bench/models/sweep.sh [--opset 17|13] [--scratch DIR] [--tol T] [--no-rewrite]
#                              [--option KEY=VALUE]... [NAME...]
#
# For each model (default: export_models.py's SWEEP list, 18 of them):
# export (cached in DIR/opsetK, default /tmp/grt-models), `grt convert` to
# .grt, one run of model_bench at batch 1 and at batch 8 (the batch is the
# exported dynamic axis), each output compared with PyTorch's (compare.py:
# max |diff| / max |ref|, above T, default 1e-4, is a mismatch). One line
# per model:
#   model  converts  runs  max rel diff (b1, b8)  the first line of the error
# then the count: how many run and match, run but differ, fail to run,
# fail to convert. Needs /usr/bin/python3 with torch and torchvision and
# Bazel (-c opt //bench:model_bench //tools:grt); not ONNX Runtime.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

opset=17
scratch=/tmp/grt-models
tol=1e-4
grt_opts=()
names=()
die() {
  echo "sweep.sh: $*" >&2
  exit 2
}
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi; }
while [ $# -gt 0 ]; do
  case "$1" in
    --opset) need_value "$@"; opset="$2"; shift 2 ;;
    --scratch) need_value "$@"; scratch="$2"; shift 2 ;;
    --tol) need_value "$@"; tol="$2"; shift 2 ;;
    --no-rewrite) grt_opts+=(--no-rewrite); shift ;;
    --option) need_value "$@"; grt_opts+=(--option "$2"); shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown argument '$1' (--help lists them)" ;;
    *) names+=("$1"); shift ;;
  esac
done

py=/usr/bin/python3
here=bench/models
"$py" -c 'import numpy, torch, torchvision' 2>/dev/null ||
  die "$py cannot import numpy, torch and torchvision (Debian: apt-get install python3-torch python3-torchvision)"
bazel build -c opt //bench:model_bench //tools:grt >/dev/null 2>&1 ||
  die "bazel build -c opt //bench:model_bench //tools:grt failed (run it to see why)"
bin="$scratch/bin"
mkdir -p "$bin"
cp -f bazel-bin/bench/model_bench bazel-bin/tools/grt "$bin/" || die "cannot copy the binaries to $bin"
if [ ${#names[@]} = 0 ]; then
  read -ra names <<<"$("$py" -c "import sys; sys.path.insert(0, '$here'); import export_models; print(' '.join(export_models.SWEEP))")"
fi

d="$scratch/opset$opset"
work="$scratch/sweep"
mkdir -p "$d" "$work"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); opset $opset; grt options: ${grt_opts[*]:-(defaults)}"
"$py" $here/export_models.py --out "$scratch" --opset "$opset" "${names[@]}" >"$work/export.log" 2>&1 ||
  echo "sweep.sh: some exports failed (listed below)"

first_error() { grep -v '^RESULT' "$1" | grep -m1 . | cut -c1-200; }
n_ok=0 n_differ=0 n_run_fail=0 n_conv_fail=0
printf '%-20s %-8s %-5s %-21s %s\n' model converts runs "max rel (b1, b8)" error
for m in "${names[@]}"; do
  converts=no runs=no rel=() err=""
  if [ ! -f "$d/$m.onnx" ]; then
    err="export: $(grep -m1 "^$m:" "$work/export.log" | cut -c1-200)"
  elif ! "$bin/grt" convert "$d/$m.onnx" "$d/$m.grt" >"$work/$m.convert.log" 2>&1; then
    rm -f "$d/$m.grt"
    err=$(first_error "$work/$m.convert.log")
  else
    converts=yes runs=yes
    for b in 1 8; do
      log="$work/$m.b$b.log"
      if ! "$bin/model_bench" "$d/$m.grt" --input "$d/$m.b$b.in.npy" --output "$work/$m.b$b.grt.npy" \
        --warmup 0 --runs 1 "${grt_opts[@]}" >"$log" 2>&1; then
        runs=no
        [ -n "$err" ] || err="batch $b: $(first_error "$log")"
        rel+=(-)
        continue
      fi
      res=$("$py" $here/compare.py "$work/$m.b$b.grt.npy" "$d/$m.b$b.torch.npy" --tol "$tol")
      st=$?
      r=$(sed -n 's/.*max_rel=\([^ ]*\).*/\1/p' <<<"$res")
      rel+=("${r:-?}")
      if [ $st != 0 ]; then
        [ -n "$err" ] || err="batch $b differs from PyTorch: $res"
      fi
    done
  fi
  if [ $converts = no ]; then
    n_conv_fail=$((n_conv_fail + 1))
  elif [ $runs = no ]; then
    n_run_fail=$((n_run_fail + 1))
  elif [ -n "$err" ]; then
    n_differ=$((n_differ + 1))
    err="ACCURACY FAIL: $err"
  else
    n_ok=$((n_ok + 1))
  fi
  printf '%-20s %-8s %-5s %-21s %s\n' "$m" $converts $runs "${rel[*]:--}" "$err"
done
echo
echo "sweep: ${#names[@]} models: $n_ok run and match PyTorch (tolerance $tol), $n_differ run but differ," \
  "$n_run_fail convert but fail to run, $n_conv_fail fail to export or convert"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
