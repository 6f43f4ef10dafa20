#!/usr/bin/env bash
# Cross-task Send/Recv latency of a small tensor (4 floats) between 2 ranks:
# grt (grt_pingpong: a graph whose value goes from task 0 to task 1 and back
# each step) against a plain MPI ping-pong (mpi_pingpong), over shared memory
# and over TCP on loopback, in one run. Prints both round trips, the ratio,
# and the goal (issue 21): grt's one-way latency at most 2x MPI's plus 5 us,
# i.e. a round trip at most 2x MPI's plus 10 us. Figures taken at a load
# average above 1.5 are marked: other work shares the cores.
#
#   bazel run -c opt //bench/cluster:latency [-- STEPS]
set -uo pipefail
grt_pp="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mpi_pp="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
export GRT_PLUGIN_PATH="$(cd "$(dirname "$3")" && pwd)"
steps="${4:-20000}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
tcp=(--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
shm=(--mca btl self,vader)
median() { sed -n 's/.*median \([0-9.]*\) us.*/\1/p'; }
for net in shm tcp; do
  declare -n mca="$net"
  load=$(cut -d' ' -f1 /proc/loadavg)
  m=$(mpirun -np 2 "${mca[@]}" "$mpi_pp" "$steps") || { echo "mpi_pingpong failed over $net"; exit 1; }
  g=$(mpirun -np 2 "${mca[@]}" "$grt_pp" "$steps") || { echo "grt_pingpong failed over $net"; exit 1; }
  load2=$(cut -d' ' -f1 /proc/loadavg)
  mark=$(awk -v a="$load" -v b="$load2" 'BEGIN { print (a > 1.5 || b > 1.5) ? " [load above 1.5: figures unreliable]" : "" }')
  echo "== $net (load average $load, then $load2)$mark"
  echo "$m"
  echo "$g"
  awk -v m="$(echo "$m" | median)" -v g="$(echo "$g" | median)" 'BEGIN {
    goal = 2 * m + 10
    printf "grt / MPI round trip: %.2fx; goal: grt <= 2 x MPI + 10 us = %.2f us: %s\n",
           g / m, goal, g <= goal ? "met" : "NOT met"
  }'
done
