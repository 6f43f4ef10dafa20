"""Finds Open MPI for the MPI transport plugin (@local_mpi).

Debian's libopenmpi-dev puts mpi.h in /usr/lib/<arch>/openmpi/include and
libmpi.so in /usr/lib/<arch>; `mpicc --showme:incdirs` says where. When it
is there, @local_mpi holds its headers as `:mpi` (linked by -lmpi) and
`defs.bzl` says MPI_FOUND = True with the path of mpirun; otherwise
MPI_FOUND = False and transport/mpi builds a note instead of the plugin, so
a machine without Open MPI builds everything else. GRT_NO_MPI=1 in the
repository environment pretends there is none. Only the plugin links MPI;
the core library never does."""

def _find_include(ctx):
    if ctx.os.environ.get("GRT_NO_MPI", "") == "1":
        return None
    mpicc = ctx.which("mpicc")
    if mpicc:
        r = ctx.execute([mpicc, "--showme:incdirs"])
        if r.return_code == 0:
            for d in r.stdout.strip().split(" "):
                if d and ctx.path(d + "/mpi.h").exists:
                    return d
    for arch in ["x86_64-linux-gnu", "aarch64-linux-gnu"]:
        d = "/usr/lib/%s/openmpi/include" % arch
        if ctx.path(d + "/mpi.h").exists:
            return d
    return None

def _mpi_configure_impl(ctx):
    inc = _find_include(ctx)
    mpirun = ctx.which("mpirun")
    if inc == None:
        ctx.file("BUILD", "# Open MPI not found: the MPI transport plugin is left out.\n")
        ctx.file("defs.bzl", "MPI_FOUND = False\nMPIRUN = \"\"\n")
        return
    ctx.symlink(inc, "include")
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

# Open MPI's C headers and library, for the transport plugin only.
cc_library(
    name = "mpi",
    hdrs = glob(["include/*.h"]),
    includes = ["include"],
    linkopts = ["-lmpi"],
)
""")
    ctx.file("defs.bzl", "MPI_FOUND = True\nMPIRUN = \"%s\"\n" % (mpirun or ""))

mpi_configure = repository_rule(
    implementation = _mpi_configure_impl,
    environ = ["GRT_NO_MPI", "PATH"],
    local = True,
)
