/* JSON pieces appended to a grt_strbuf (base/strbuf.h), the JSON writer's
 * buffer: quoted strings, and the status a writer checks once at the end. */
#ifndef GRT_GRAPH_FORMAT_JSON_BUF_H_
#define GRT_GRAPH_FORMAT_JSON_BUF_H_

#include <stdbool.h>

#include "base/status.h"
#include "base/strbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appends `s` as a quoted JSON string, escaped by jansson. Returns false
 * (appending nothing) when `s` is not valid UTF-8, which JSON cannot hold;
 * running out of memory marks `b` failed instead. */
bool grt_json_append_string(grt_strbuf* b, const char* s);

/* RESOURCE_EXHAUSTED if an append to `b` ran out of memory, else NULL. */
GRT_MUST_USE grt_status* grt_json_text_status(const grt_strbuf* b);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_JSON_BUF_H_ */
