/* OpenBLAS 0.3.21 does not know AMD Zen 5 and runs its AVX2 kernels there,
 * though the CPU has AVX-512 and the SkylakeX kernels are ~1.8x faster; nor
 * Intel's Emerald Rapids (family 6 model 207), where it falls back to its
 * SSE3 "Prescott" kernels (a 1x256x256 product took 16.7 us instead of
 * 3.3: backends/cpu/LIBRARIES.md). The SkylakeX kernels need AVX-512 F, BW,
 * DQ and VL, which every CPU that has them runs. The library reads
 * OPENBLAS_CORETYPE once, when it loads, before main(); so a program can
 * only choose by starting again with it set. The grt command and the
 * benchmarks do that (never the library: a host program owns its
 * environment). Set OPENBLAS_CORETYPE yourself to override. */
#ifndef GRT_TOOLS_BLAS_CORE_H_
#define GRT_TOOLS_BLAS_CORE_H_

/* On a CPU with AVX-512 (F, BW, DQ, VL) and OPENBLAS_CORETYPE unset: sets
 * it to SkylakeX and re-executes this program with the same arguments. Returns
 * (doing nothing) everywhere else, or if the re-exec fails. */
void grt_select_blas_core(char** argv);

#endif /* GRT_TOOLS_BLAS_CORE_H_ */
