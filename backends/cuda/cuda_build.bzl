"""The CUDA plugin's targets, or a note that it was left out.

BUILD files cannot branch, so the choice between building the plugin
(toolkit found by third_party/cuda/cuda_configure.bzl) and recording that
it was left out lives in this macro."""

load("@local_cuda//:defs.bzl", "CUDA_FOUND", "CUDA_LIB_DIRS", "NCCL_FOUND", "NCCL_LIB_DIR", "NVCC")
load("@rules_cc//cc:defs.bzl", "cc_binary")

# sm_80 (A100) and sm_90 (H100, H200) machine code, plus compute_90 PTX so
# later cards can JIT it.
NVCC_FLAGS = [
    "-O3",
    "-std=c++17",
    "-Xcompiler", "-fPIC,-fvisibility=hidden,-Wall",
    "-gencode", "arch=compute_80,code=sm_80",
    "-gencode", "arch=compute_90,code=[sm_90,compute_90]",
]

def _cuda_object(name, src, hdrs):
    """One .cu file compiled by nvcc into a position-independent object."""
    out = name + ".o"
    native.genrule(
        name = name,
        srcs = [src] + hdrs,
        outs = [out],
        cmd = "%s -c %s -I. -Iinclude -I$$(dirname $(location %s)) $(location %s) -o $@" % (
            NVCC,
            " ".join(NVCC_FLAGS),
            src,
            src,
        ),
        message = "nvcc " + src,
    )
    return ":" + out

def cuda_plugin(name, c_srcs, cu_srcs, hdrs, deps):
    # hdrs: the plugin's own headers (.h, .cuh); labels of other packages'
    # headers go in deps.
    """libgrt_backend_cuda.so when the toolkit is here; otherwise a text
    file saying it was left out (and a DEBUG line when the package loads)."""
    if not CUDA_FOUND:
        print("CUDA toolkit not found: CUDA plugin left out")
        native.genrule(
            name = name,
            outs = [name + ".left_out.txt"],
            cmd = "echo 'CUDA toolkit not found: CUDA plugin left out' > $@",
        )
        return
    objs = [_cuda_object(src[:-3] + "_cu", src, hdrs) for src in cu_srcs]
    lib_dirs = CUDA_LIB_DIRS + ([NCCL_LIB_DIR] if NCCL_FOUND and NCCL_LIB_DIR not in CUDA_LIB_DIRS else [])
    rpath = ":".join(lib_dirs)
    # NCCL for the all-reduce when found (nccl_all_reduce.c); else its copy path.
    nccl_copts = ["-DGRT_HAVE_NCCL"] if NCCL_FOUND else []
    cc_binary(
        name = name,
        srcs = c_srcs + [h for h in hdrs if h.endswith(".h")] + objs,
        copts = ["-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-D_GNU_SOURCE",
                 "-fvisibility=hidden"] + nccl_copts,
        linkshared = True,
        # Only the CUDA runtime is linked: cuBLAS, cuDNN and NCCL are opened
        # on first use (lazy_lib.h), from the run path below, so loading the
        # plugin and probing on a machine without a GPU maps none of them.
        linkopts = ["-L" + d for d in lib_dirs] + [
            "-lcudart",
            "-ldl",
            "-lstdc++",
            "-Wl,-rpath," + rpath,
            "-Wl,--no-undefined-version",
        ],
        deps = deps + ["@local_cuda//:headers"],
        visibility = ["//visibility:public"],
    )

def if_cuda(then, otherwise = []):
    """`then` when the CUDA toolkit was found, else `otherwise`: for targets
    that need the built plugin (a list comprehension over it in a BUILD
    file defines them or not)."""
    return then if CUDA_FOUND else otherwise
