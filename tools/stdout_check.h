/* Standard output that reports its own failure: a command whose output was
 * lost (stdout on a full disk, on /dev/full, a closed pipe's EIO) must not
 * exit 0. */
#ifndef GRT_TOOLS_STDOUT_CHECK_H_
#define GRT_TOOLS_STDOUT_CHECK_H_

/* Puts a stream in place of `stdout` that writes to descriptor 1 and keeps
 * the OS reason of the first write that fails (stdio itself keeps only an
 * error flag). Call first thing in main. */
void grt_stdout_check_begin(void);

/* Flushes and closes standard output. When any write to it failed, prints
 * "grt: standard output: REASON" on stderr and returns 1 (or `rc` if that
 * is already a failure); otherwise returns rc. */
int grt_stdout_check_end(int rc);

#endif /* GRT_TOOLS_STDOUT_CHECK_H_ */
