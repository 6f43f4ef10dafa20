/* The system calls grt's file writer makes, behind one switch that tests
 * use to fail the Nth of them (as SQLite's I/O-error tests do): every write,
 * fsync, open, link and rename the writer issues goes through here, so a test
 * can walk N = 1, 2, ... and check that each failure is an error naming the
 * path, with the previous file intact and no temporary left behind. */
#ifndef GRT_GRAPH_FORMAT_FILE_SYS_H_
#define GRT_GRAPH_FORMAT_FILE_SYS_H_

#include <stdbool.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tests only: the `nth` call from now on (1 = the next one) fails with
 * errno `err`, and so does every later one while `persist` is set (a disk
 * that stays full). nth = 0 disarms. Process-wide; not for concurrent use. */
void grt_file_sys_fail_at(int nth, int err, bool persist);

/* Tests only: while set, opening with O_TMPFILE fails with EOPNOTSUPP, as
 * on a file system without it, so the named-temporary path runs. */
void grt_file_sys_no_tmpfile(bool on);

/* Tests only: while `fn` is set, it hears of every call before it is made:
 * the call's name ("write", "fsync", "open", "linkat", "rename", "close"),
 * the descriptor it acts on (-1 for none) and the path it names (the new
 * name for linkat and rename; NULL for none). The descriptor is still open
 * then, so the observer may fstat it (a directory's fsync from a file's).
 * Lets a test check which calls happen in what order: a failure sweep only
 * sees that each call's failure is handled, not that a call is missing.
 * NULL stops it. Process-wide; not for concurrent use. */
typedef void (*grt_file_sys_observer)(void* ctx, const char* call, int fd, const char* path);
void grt_file_sys_observe(grt_file_sys_observer fn, void* ctx);

/* How many calls went through the layer since the last grt_file_sys_fail_at
 * (tests use it to know when N has passed the last call). */
int grt_file_sys_calls(void);

ssize_t grt_sys_write(int fd, const void* buf, size_t n);
int grt_sys_fsync(int fd);
int grt_sys_open(const char* path, int flags, mode_t mode);
int grt_sys_linkat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, int flags);
int grt_sys_rename(const char* from, const char* to);
int grt_sys_close(int fd);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_FILE_SYS_H_ */
