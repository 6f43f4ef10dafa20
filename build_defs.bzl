"""Compiler flags shared by grt's product code (C11, warnings are errors)."""

GRT_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-D_GNU_SOURCE",
    "-fvisibility=hidden",
]

# The layers, lowest first (ARCHITECTURE.md). A layer's package is visible
# only to the layers after it, plus the library target at the root and the
# tests, benchmarks and examples; so a lower layer that reaches up fails to
# build.
LAYERS = [
    "base",
    "ops",
    "training",
    "interchange",
    "graph_format",
    "kernels",
    "runtime/device",
    "placer",
    "parallel",
    "backends/cpu",
    "optimizer",
    "runtime/cluster",
    "runtime/session",
    "tools",
]

_OUTSIDE = [
    "//:__pkg__",
    "//tests:__subpackages__",
    "//bench:__pkg__",
    "//examples:__pkg__",
]

def visible_above(layer, extra = []):
    """Visibility for `layer`'s targets: the layers above it (the tools are
    a client of the public API only, so they are never among them)."""
    i = LAYERS.index(layer)
    return ["//%s:__pkg__" % l for l in LAYERS[i + 1:] if l != "tools"] + _OUTSIDE + extra
