/* "Did you mean": the names closest to a mistyped one, by edit distance
 * ignoring case (a case-only difference counts as the closest of all). */
#ifndef GRT_TOOLS_CLOSEST_H_
#define GRT_TOOLS_CLOSEST_H_

#include <stddef.h>

/* Up to `max` of names[0..n-1] close enough to `word` to be what was meant
 * (at most a third of its letters off, and at least 2), closest first, into
 * out; returns how many. */
size_t grt_closest_names(const char* word, const char* const* names, size_t n, const char** out,
                         size_t max);

#endif /* GRT_TOOLS_CLOSEST_H_ */
