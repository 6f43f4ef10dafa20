# Sourced by the tests that run ranks under mpirun (cluster_test.sh,
# cluster_train_test.sh, fashion_mnist_cluster_test.sh), with $plugin set
# to the MPI transport plugin's path. Where mpirun or the plugin is missing
# (a machine without Open MPI) the test says so and passes; CI installs
# Open MPI (scripts/setup.sh), so it runs there. Then: the plugin's folder
# for grt, Open MPI's settings for one oversubscribed machine, a scratch
# folder removed at exit ($tmp, also TMPDIR), and the two ways the ranks
# talk (${tcp[@]} and ${shm[@]}).
if ! command -v mpirun >/dev/null || [ "$(basename "$plugin")" != libgrt_transport_mpi.so ]; then
  echo "SKIPPED: Open MPI is not installed (mpirun or the plugin is missing): apt-get install libopenmpi-dev openmpi-bin"
  exit 0
fi
export GRT_PLUGIN_PATH="$(cd "$(dirname "$plugin")" && pwd)"
# CI runs as root; Open MPI refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# Under --config=asan: Open MPI keeps memory until exit, much of it allocated
# by components that MPI_Finalize unloads, so LeakSanitizer can neither
# name nor suppress it; the ranks check addresses and UB, not leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp="$(mktemp -d)"
export TMPDIR="$tmp"
trap 'rm -rf "$tmp"' EXIT
# Loopback only (127.0.0.1): the interface by name, as a /32 netmask makes
# Open MPI 4.1 stall large messages.
tcp=(--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
shm=(--mca btl self,vader)
