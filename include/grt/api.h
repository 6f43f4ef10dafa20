/* grt — annotations on the public API.
 *
 * GRT_API marks a function the library exports: the library is built with
 * -fvisibility=hidden, so only GRT_API symbols are visible in libgrt.so.
 * GRT_MUST_USE marks a function whose result must not be ignored (every
 * function returning grt_status*): an ignored status is a leak and a lost
 * error; free it with grt_status_free() when it is deliberately dropped.
 * GRT_PRINTF(f, a) marks a printf-style function (format argument f, the
 * values from argument a). */
#ifndef GRT_API_H_
#define GRT_API_H_

#if defined(__GNUC__) || defined(__clang__)
#define GRT_API __attribute__((visibility("default")))
#define GRT_MUST_USE __attribute__((warn_unused_result))
#define GRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GRT_API
#define GRT_MUST_USE
#define GRT_PRINTF(f, a)
#endif

#endif /* GRT_API_H_ */
