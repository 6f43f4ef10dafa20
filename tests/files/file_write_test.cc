// grt_write_file_atomic: what a destination holds after every way a write
// can end (success, each system call failing in turn, a full file system, a
// kill at a random moment), what kind of file it is afterwards, and that no
// temporary is ever left beside it.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "graph_format/file_sys.h"
#include "grt/tensor_io.h"
#include "grt/status.h"
}

namespace {

std::string g_text;  // what write_text writes

grt_status* write_text(void* ctx, FILE* f) {
  const std::string* s = static_cast<const std::string*>(ctx);
  if (fwrite(s->data(), 1, s->size(), f) != s->size())
    return grt_status_new(GRT_UNAVAILABLE, "short write");
  return nullptr;
}

grt_status* write_text_then_fail(void* ctx, FILE* f) {
  fputs("partial", f);
  return grt_status_new(GRT_INTERNAL, "the producer failed");
}

std::string read_all(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return "<missing>";
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  fclose(f);
  return s;
}

void put(const std::string& path, const std::string& text) {
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_TRUE(f);
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
}

std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) out.insert(e->d_name);
  closedir(d);
  return out;
}

// A large, position-dependent text: a torn or mixed file never equals it.
std::string pattern(char tag, size_t n) {
  std::string s(n, ' ');
  for (size_t i = 0; i < n; i++) s[i] = static_cast<char>(tag + (i * 7919 % 23));
  return s;
}

// This host's tag, as temporary names spell it: FNV-1a of the host name.
std::string HostTag() {
  char hostname[256] = "";
  gethostname(hostname, sizeof hostname - 1);
  unsigned h = 2166136261u;
  for (const char* c = hostname; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
  char tag[16];
  snprintf(tag, sizeof tag, "%08x", h);
  return tag;
}

class FileWriteTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/grt_file_write_XXXXXX";
    const char* base = getenv("TEST_TMPDIR");
    std::string t = std::string(base ? base : "/tmp") + "/fwXXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back('\0');
    char* d = mkdtemp(buf.data());
    if (!d) d = mkdtemp(tmpl);
    ASSERT_TRUE(d);
    dir_ = d;
    grt_file_sys_no_tmpfile(GetParam());
  }
  void TearDown() override {
    grt_file_sys_fail_at(0, 0, false);
    grt_file_sys_no_tmpfile(false);
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(system(cmd.c_str()), 0);
  }
  std::string dir_;
};

TEST_P(FileWriteTest, NewFileGetsUmaskedModeAndReplacedFileKeepsItsMode) {
  std::string path = dir_ + "/new.json", text = "hello";
  mode_t old_mask = umask(027);
  grt_status* s = grt_write_file_atomic(path.c_str(), write_text, &text);
  umask(old_mask);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(umask(old_mask), old_mask);  // the writer left the umask alone
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  text = "again";
  s = grt_write_file_atomic(path.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read_all(path), "again");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"new.json"});
}

TEST_P(FileWriteTest, ProducerFailureLeavesOldFileAndNoTemporary) {
  std::string path = dir_ + "/out.json";
  put(path, "old");
  grt_status* s = grt_write_file_atomic(path.c_str(), write_text_then_fail, nullptr);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(grt_status_message(s)).find("the producer failed"), std::string::npos);
  grt_status_free(s);
  EXPECT_EQ(read_all(path), "old");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"out.json"});
}

// Every system call of the writer fails in turn, once (EIO) and for good
// (ENOSPC, a disk that stays full), over a new and an existing destination.
TEST_P(FileWriteTest, EachFailingSystemCallIsAnErrorAndChangesNothing) {
  const std::string text = pattern('A', 300000);  // several writes
  struct Case {
    int err;
    bool persist;
    bool existing;
  } cases[] = {{EIO, false, true}, {ENOSPC, true, true}, {EIO, false, false}};
  for (const Case& c : cases) {
    std::string path = dir_ + "/g.grt";
    int calls_when_clean = -1;
    for (int n = 1; n < 200; n++) {
      unlink(path.c_str());
      if (c.existing) put(path, "old");
      grt_file_sys_fail_at(n, c.err, c.persist);
      grt_status* s = grt_write_file_atomic(path.c_str(), write_text, (void*)&text);
      int calls = grt_file_sys_calls();
      grt_file_sys_fail_at(0, 0, false);
      SCOPED_TRACE("failing call " + std::to_string(n) + " errno " + std::to_string(c.err));
      if (!s) {               // n is past the last call: the write went through
        EXPECT_LE(calls, n);  // == n: the final close, after the data was synced and named
        EXPECT_EQ(read_all(path), text);
        calls_when_clean = calls;
        break;
      }
      std::string msg = grt_status_message(s);
      grt_status_free(s);
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(strerror(c.err)), std::string::npos) << msg;
      // Only the directory's fsync comes after the new file took the name:
      // then the data is in place but not known to be durable.
      std::string now = read_all(path);
      if (msg.find("cannot sync its directory") == std::string::npos)
        EXPECT_EQ(now, c.existing ? "old" : "<missing>") << msg;
      else
        EXPECT_EQ(now, text);
      std::set<std::string> want;
      if (c.existing || now == text) want.insert("g.grt");
      EXPECT_EQ(entries(dir_), want) << msg;
    }
    EXPECT_GT(calls_when_clean, 3) << "the sweep never got past the last call";
  }
}

// One system call as the observer saw it, before it was made.
struct SysCall {
  std::string call;  // "write", "fsync", "open", "linkat", "rename", "close"
  char kind;         // the descriptor's file: 'f' regular, 'd' directory, '-' none
  ino_t ino;         // its inode, 0 for none
  std::string path;  // the name a linkat or rename gives, an open's path
};

void record(void* ctx, const char* call, int fd, const char* path) {
  SysCall c{call, '-', 0, path ? path : ""};
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0) {
    c.kind = S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : '?';
    c.ino = st.st_ino;
  }
  static_cast<std::vector<SysCall>*>(ctx)->push_back(c);
}

// The order of the writer's durable steps, which a failure sweep cannot see
// (a missing call fails nothing): the new file's data is fsynced after its
// last write and before any name is given to it, and its directory is
// fsynced after the destination's name points at it. Dropping the file's
// fsync before the link or rename was planted by hand and caught here.
TEST_P(FileWriteTest, FileIsSyncedBeforeItIsNamedAndTheDirectoryAfter) {
  const std::string text = pattern('S', 200000);
  std::string path = dir_ + "/order.grt";
  struct stat dir_st;
  ASSERT_EQ(stat(dir_.c_str(), &dir_st), 0);
  for (bool existing : {false, true}) {
    SCOPED_TRACE(existing ? "replacing a file" : "a new file");
    unlink(path.c_str());
    if (existing) put(path, "old");
    std::vector<SysCall> calls;
    grt_file_sys_observe(record, &calls);
    grt_status* s = grt_write_file_atomic(path.c_str(), write_text, (void*)&text);
    grt_file_sys_observe(nullptr, nullptr);
    ASSERT_EQ(s, nullptr) << grt_status_message(s);
    EXPECT_EQ(read_all(path), text);
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    std::string seen;
    for (const SysCall& c : calls) seen += c.call + "(" + c.kind + ") " + c.path + "\n";
    SCOPED_TRACE("calls:\n" + seen);
    // Where the new file (the destination's inode now) was last written and
    // synced, where a name was first given to it, and where it took the
    // destination's name.
    int last_write = -1, file_sync = -1, first_name = -1, published = -1, dir_sync = -1;
    for (int i = 0; i < static_cast<int>(calls.size()); i++) {
      const SysCall& c = calls[i];
      if (c.call == "write" && c.ino == st.st_ino) last_write = i;
      if (c.call == "fsync" && c.kind == 'f' && c.ino == st.st_ino && file_sync < 0) file_sync = i;
      if (c.call == "fsync" && c.kind == 'd' && c.ino == dir_st.st_ino) dir_sync = i;
      if (c.call == "linkat" || c.call == "rename") {
        if (first_name < 0) first_name = i;
        if (c.path == path) published = i;
      }
    }
    ASSERT_GE(last_write, 0) << "no write to the new file went through the layer";
    ASSERT_GE(published, 0) << "no linkat or rename gave the destination's name";
    ASSERT_GE(file_sync, 0) << "the new file was never fsynced";
    EXPECT_LT(last_write, file_sync);
    EXPECT_LT(file_sync, first_name) << "the file was named before its data was synced";
    ASSERT_GE(dir_sync, 0) << "the directory was never fsynced";
    EXPECT_GT(dir_sync, published) << "the directory was synced before the name was in it";
  }
}

TEST_P(FileWriteTest, SymlinkIsFollowedAndItsTargetReplaced) {
  std::string target = dir_ + "/real.json", link = dir_ + "/link.json", text = "new";
  put(target, "old");
  ASSERT_EQ(symlink("real.json", link.c_str()), 0);
  grt_status* s = grt_write_file_atomic(link.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(read_all(target), "new");
  EXPECT_EQ(entries(dir_), (std::set<std::string>{"link.json", "real.json"}));
  // A dangling link: its target is created.
  unlink(target.c_str());
  s = grt_write_file_atomic(link.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(read_all(target), "new");
}

// In a sticky, world-writable directory (/tmp) the kernel follows a symlink
// only when it belongs to the directory's owner or to the follower
// (fs.protected_symlinks); the writer resolves links itself, so it applies
// the same rule. Two users: the test runs as root (as in CI) and gives the
// link to uid 65534, or the directory to it.
TEST_P(FileWriteTest, SymlinkOfAnotherUserInStickyDirectoryIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to give a link to another user (uid 65534)";
  std::string sticky = dir_ + "/sticky", target = dir_ + "/secret", link = sticky + "/out.grt";
  ASSERT_EQ(mkdir(sticky.c_str(), 0700), 0);
  ASSERT_EQ(chmod(sticky.c_str(), 01777), 0);
  put(target, "secret");
  ASSERT_EQ(chmod(target.c_str(), 0600), 0);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  ASSERT_EQ(lchown(link.c_str(), 65534, 65534), 0);
  std::string text = "new";
  grt_status* s = grt_write_file_atomic(link.c_str(), write_text, &text);
  ASSERT_NE(s, nullptr) << "followed another user's link in a sticky directory";
  EXPECT_EQ(grt_status_code(s), GRT_PERMISSION_DENIED);
  std::string msg = grt_status_message(s);
  grt_status_free(s);
  EXPECT_NE(msg.find(link + ": refusing to follow the symlink"), std::string::npos) << msg;
  EXPECT_NE(msg.find("uid 65534"), std::string::npos) << msg;
  EXPECT_EQ(read_all(target), "secret");
  EXPECT_EQ(entries(sticky), std::set<std::string>{"out.grt"});
  // The directory's owner's link is followed: the directory now belongs
  // to 65534 too.
  ASSERT_EQ(chown(sticky.c_str(), 65534, 65534), 0);
  s = grt_write_file_atomic(link.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(read_all(target), "new");
  // The caller's own link is followed, whoever owns the directory.
  ASSERT_EQ(chown(sticky.c_str(), 65534, 65534), 0);
  ASSERT_EQ(lchown(link.c_str(), 0, 0), 0);
  ASSERT_EQ(chown(sticky.c_str(), 0, 0), 0);
  text = "mine";
  s = grt_write_file_atomic(link.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(read_all(target), "mine");
  // Not sticky, or not world-writable: any link is followed, as the kernel does.
  ASSERT_EQ(lchown(link.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(sticky.c_str(), 0777), 0);
  text = "open";
  s = grt_write_file_atomic(link.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(read_all(target), "open");
  // A chain: a link of ours leading to another user's link in the sticky
  // directory is refused at that second link.
  ASSERT_EQ(chmod(sticky.c_str(), 01777), 0);
  std::string first = dir_ + "/first.grt";
  ASSERT_EQ(symlink(link.c_str(), first.c_str()), 0);
  s = grt_write_file_atomic(first.c_str(), write_text, &text);
  ASSERT_NE(s, nullptr) << "followed a chain through another user's link";
  grt_status_free(s);
  EXPECT_EQ(read_all(target), "open");
}

// A destination whose file name is as long as the file system allows is
// replaced: the temporary name it needs (to rename over the old file, or
// the named temporary without O_TMPFILE) is shortened to fit, and a
// killed writer's shortened leftover is still swept.
TEST_P(FileWriteTest, LongestFileNameIsReplaced) {
  for (size_t len : {200, 229, 240, 255}) {
    std::string path = dir_ + "/" + std::string(len - 4, 'n') + ".grt";
    put(path, "old");
    std::string text = "new " + std::to_string(len);
    grt_status* s = grt_write_file_atomic(path.c_str(), write_text, &text);
    ASSERT_EQ(s, nullptr) << len << ": " << grt_status_message(s);
    EXPECT_EQ(read_all(path), text);
    EXPECT_EQ(entries(dir_).size(), 1u) << len;
    unlink(path.c_str());
  }
  // A leftover of a dead writer, named as the writer now names them.
  std::string base(251, 'm');
  std::string path = dir_ + "/" + base + ".grt";
  put(path, "old");
  pid_t dead = fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  // Temporary names add at most 33 bytes (.tmp. HOST . PID(10) . RANDOM).
  std::string left = dir_ + "/" + base.substr(0, 255 - 33) + ".tmp." + HostTag() + "." +
                     std::to_string(dead) + ".abcdEFG1";
  put(left, "x");
  std::string text = "new";
  grt_status* s = grt_write_file_atomic(path.c_str(), write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(entries(dir_), std::set<std::string>{base + ".grt"});
}

TEST_P(FileWriteTest, FifoIsWrittenNotReplaced) {
  std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_all(fifo); });
  std::string text = pattern('a', 100000);
  grt_status* s = grt_write_file_atomic(fifo.c_str(), write_text, &text);
  reader.join();
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(got, text);
  struct stat st;
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(dir_), std::set<std::string>{"pipe"});
}

TEST_P(FileWriteTest, DevicesAndOwnDescriptorsAreWrittenInPlace) {
  std::string text = "x";
  grt_status* s = grt_write_file_atomic("/dev/null", write_text, &text);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // /dev/full: the device's own answer is the error.
  s = grt_write_file_atomic("/dev/full", write_text, &text);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(grt_status_message(s)).find("/dev/full: cannot write: No space left"),
            std::string::npos)
      << grt_status_message(s);
  grt_status_free(s);
  // A descriptor of ours, by /dev/fd/N and /proc/self/fd/N: a pipe here.
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    std::string path = prefix + std::to_string(p[1]);
    text = "through the pipe";
    s = grt_write_file_atomic(path.c_str(), write_text, &text);
    ASSERT_EQ(s, nullptr) << grt_status_message(s);
    close(p[1]);
    char buf[64] = {0};
    ASSERT_EQ(read(p[0], buf, sizeof buf), (ssize_t)text.size());
    EXPECT_EQ(std::string(buf), text);
    close(p[0]);
  }
  // A directory is refused, by name.
  s = grt_write_file_atomic(dir_.c_str(), write_text, &text);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(grt_status_message(s)).find("is a directory"), std::string::npos);
  grt_status_free(s);
}

// A file-size limit makes the kernel refuse writes past it (EFBIG), as a
// full disk refuses them: the error names the path and the reason, the old
// file stays. In a child, so the limit does not outlive the test.
TEST_P(FileWriteTest, FileSizeLimitIsAnErrorAndTheOldFileStays) {
  std::string path = dir_ + "/big.grt";
  put(path, "old");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit r = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &r);
    std::string text = pattern('A', 100000);
    grt_status* s = grt_write_file_atomic(path.c_str(), write_text, &text);
    if (!s) _exit(10);
    std::string msg = grt_status_message(s);
    if (msg.find(path) == std::string::npos) _exit(11);
    if (msg.find(strerror(EFBIG)) == std::string::npos) _exit(12);
    _exit(0);
  }
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: no error, 11: no path, 12: no reason";
  EXPECT_EQ(read_all(path), "old");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"big.grt"});
}

// A tiny tmpfs, where the machine lets us mount one (root in a private mount
// namespace); skipped elsewhere.
TEST_P(FileWriteTest, FullTmpfsIsAnErrorAndTheOldFileStays) {
  std::string mnt = dir_ + "/mnt";
  ASSERT_EQ(mkdir(mnt.c_str(), 0700), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (unshare(CLONE_NEWNS) != 0) _exit(77);
    mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
    if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) _exit(77);
    std::string path = mnt + "/g.grt";
    put(path, "old");
    std::string text = pattern('A', 1 << 20);
    grt_status* s = grt_write_file_atomic(path.c_str(), write_text, &text);
    if (!s) _exit(10);
    std::string msg = grt_status_message(s);
    if (msg.find(path) == std::string::npos || msg.find(strerror(ENOSPC)) == std::string::npos)
      _exit(11);
    if (read_all(path) != "old") _exit(12);
    if (entries(mnt) != std::set<std::string>{"g.grt"}) _exit(13);
    // Space comes back once the failed write's file is gone: a small write fits.
    std::string small = "fits";
    if (grt_write_file_atomic(path.c_str(), write_text, &small) || read_all(path) != "fits")
      _exit(14);
    _exit(0);
  }
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a tmpfs here";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: no error, 11: message, 12: old file changed, 13: leftovers, 14: small write";
}

// A child rewrites the destination with one of two large texts in a loop;
// killed at a random moment, it leaves the destination whole (old, A or B).
// The only thing it may leave beside it is a temporary of that destination
// (a kill between naming the new file and renaming it over the old one),
// and the next write, by another process, removes it.
TEST_P(FileWriteTest, KilledWriterLeavesOldOrNewAndNoTemporary) {
  std::string path = dir_ + "/g.grt";
  const std::string a = pattern('A', 1 << 20), b = pattern('a', 1 << 20);
  put(path, "old");
  std::mt19937 rng(12345);
  int left_behind = 0;
  for (int round = 0; round < 12; round++) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int i = 0;; i++) {
        const std::string& t = i % 2 ? b : a;
        grt_status* s = grt_write_file_atomic(path.c_str(), write_text, (void*)&t);
        if (s) _exit(3);
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 40000));
    kill(pid, SIGKILL);
    int status;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer failed: " << WEXITSTATUS(status);
    std::string now = read_all(path);
    EXPECT_TRUE(now == "old" || now == a || now == b)
        << "round " << round << ": torn file of " << now.size() << " bytes";
    for (const std::string& e : entries(dir_)) {
      EXPECT_TRUE(e == "g.grt" || e.rfind("g.grt.tmp.", 0) == 0) << e;
      if (e != "g.grt") left_behind++;
    }
    // The next writer (this process) sweeps what the killed one left.
    const std::string& t = round % 2 ? a : b;
    grt_status* st = grt_write_file_atomic(path.c_str(), write_text, (void*)&t);
    ASSERT_EQ(st, nullptr) << grt_status_message(st);
    EXPECT_EQ(entries(dir_), std::set<std::string>{"g.grt"}) << "round " << round;
    EXPECT_EQ(read_all(path), t);
  }
  printf("%d of 12 kills left a temporary for the next write to sweep\n", left_behind);
}

// A temporary of a live writer (this process's, or another's still running)
// and files that only look like temporaries are never swept.
TEST_P(FileWriteTest, SweepLeavesLiveWritersAndOtherFilesAlone) {
  std::string path = dir_ + "/g.grt";
  put(path, "old");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  pid_t dead = fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) _exit(0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  const std::string host = HostTag();
  auto name = [&](long pid) {
    return "g.grt.tmp." + std::string(host) + "." + std::to_string(pid) + ".abcdEFG1";
  };
  const std::set<std::string> keep = {
      name((long)getpid()),  // this process: another thread's write
      name((long)child),     // a writer that still runs
      "g.grt.tmp.00000000." + std::to_string(dead) + ".abcdEFG1",  // another host
      "g.grt.tmp." + std::string(host) + "." + std::to_string(dead) + ".short",
      "h.grt.tmp." + std::string(host) + "." + std::to_string(dead) + ".abcdEFG1",
      "g.grt.backup"};
  for (const std::string& e : keep) put(dir_ + "/" + e, "x");
  put(dir_ + "/" + name((long)dead), "x");  // a writer that is gone
  const std::string t = "new";
  grt_status* st = grt_write_file_atomic(path.c_str(), write_text, (void*)&t);
  ASSERT_EQ(st, nullptr) << grt_status_message(st);
  std::set<std::string> want = keep;
  want.insert("g.grt");
  EXPECT_EQ(entries(dir_), want);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

INSTANTIATE_TEST_SUITE_P(TmpfileOrNamed, FileWriteTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? std::string("NamedTemporary") : std::string("Tmpfile");
                         });

}  // namespace
