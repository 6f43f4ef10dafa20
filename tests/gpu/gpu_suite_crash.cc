// The GPU suite's crash report: a case that dies of a signal (SIGSEGV,
// SIGBUS, SIGFPE, SIGABRT) prints the stack (backtrace_symbols_fd: the
// suite is linked -rdynamic) and the process's executable mappings to
// stderr before dying, so a crash on the GPU machine can be placed with
// addr2line against the unstripped binaries built here.
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <initializer_list>

namespace {

void Write(const char* s) {
  ssize_t unused = write(2, s, strlen(s));
  (void)unused;
}

void OnCrash(int sig) {
  Write("\n*** GPU suite: fatal signal ");
  Write(strsignal(sig));
  Write("; stack:\n");
  void* frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, 2);
  Write("*** executable mappings:\n");
  int fd = open("/proc/self/maps", O_RDONLY);
  if (fd >= 0) {
    char buf[4096];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0) {
      ssize_t unused = write(2, buf, (size_t)r);
      (void)unused;
    }
    close(fd);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

struct InstallCrashReport {
  InstallCrashReport() {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT}) signal(sig, OnCrash);
  }
} install_crash_report;

}  // namespace
