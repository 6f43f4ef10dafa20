/* grt place --dot: the plan as a picture. */
#ifndef GRT_TOOLS_PICTURE_H_
#define GRT_TOOLS_PICTURE_H_

#include "grt/grt.h"

/* Writes the plan's DOT graph to `path`, or SVG when `path` ends in ".svg"
 * (by running Graphviz's `dot -Tsvg`, found on PATH); the file appears
 * whole or not at all. */
grt_status* grt_tool_save_picture(const grt_plan* p, const char* path);

#endif /* GRT_TOOLS_PICTURE_H_ */
