// inprocess_bench: measure the CPU cost of one kernel compile run as
//   (A) an external clang process (which itself spawns ld.lld), exactly as
//       kdbgen runs it,
//   (B) in-process: clang::driver::Driver builds the Compilation from the same
//       argv; the cc1 job runs through CompilerInvocation + CompilerInstance +
//       ExecuteCompilerInvocation, the ld.lld job through lld::lldMain (ELF),
//   (C) like B, but with the device-library bitcode files read once per
//       process (kept in an in-memory VFS overlay) and one FileManager shared
//       by all compiles of the process.
// Standalone research tool for kdbgen issue #15; not part of the kdbgen build.
//
// Usage:
//   inprocess_bench run COMMANDS.json WORKDIR [PASSES=3]
//       orchestrator: per pass starts one B worker and one C worker (process
//       start counted once per pass), then for every command runs A, A with
//       -c (no lld step), B and C interleaved (side order rotates per pass),
//       plus `clang --version` and `ld.lld --version`; prints a table and
//       writes WORKDIR/results.tsv.
//   inprocess_bench worker COMMANDS.json WORKDIR inproc|libsonce
//       reads "index outpath scratchdir" lines on stdin, answers
//       "OK user sys" / "FAIL user sys" on the original stdout.
//   inprocess_bench noop           loads everything, initialises targets, exits.
//   inprocess_bench once COMMANDS.json INDEX OUT [libsonce]
//       one in-process compile (debugging).

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/FrontendTool/Utils.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

LLD_HAS_DRIVER(elf)

extern char **environ;

namespace {

using Argv = std::vector<std::string>;

struct Entry {
  std::string kernel;
  std::vector<Argv> commands;
};

double tv(const timeval &t) { return t.tv_sec + t.tv_usec / 1e6; }
double cpuOf(const rusage &r) { return tv(r.ru_utime) + tv(r.ru_stime); }

rusage selfUsage() {
  rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r;
}

[[noreturn]] void die(const std::string &msg) {
  fprintf(stderr, "inprocess_bench: %s\n", msg.c_str());
  exit(2);
}

std::vector<Entry> loadCommands(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    die("cannot read " + path);
  auto val = llvm::json::parse((*buf)->getBuffer());
  if (!val)
    die("bad json in " + path + ": " + llvm::toString(val.takeError()));
  std::vector<Entry> out;
  const llvm::json::Object *root = val->getAsObject();
  const llvm::json::Array *arr = root ? root->getArray("compiles") : nullptr;
  if (!arr)
    die("no compiles array in " + path);
  for (const llvm::json::Value &v : *arr) {
    const llvm::json::Object *o = v.getAsObject();
    Entry e;
    if (auto k = o->getString("kernel"))
      e.kernel = k->str();
    for (const llvm::json::Value &c : *o->getArray("commands")) {
      Argv a;
      for (const llvm::json::Value &s : *c.getAsArray())
        a.push_back(s.getAsString()->str());
      e.commands.push_back(a);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string replaceAll(std::string s, const std::string &from,
                       const std::string &to) {
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

Argv substitute(const Argv &a, const std::string &out,
                const std::string &scratch) {
  Argv r;
  for (const std::string &s : a)
    r.push_back(replaceAll(replaceAll(s, "{OUT}", out), "{SCRATCH}", scratch));
  return r;
}

void mkdirs(const std::string &d) { llvm::sys::fs::create_directories(d); }

// ---------------------------------------------------------------- external

std::vector<std::string> envWithTmp(const std::string &tmp) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (strncmp(*e, "TMPDIR=", 7) != 0)
      env.push_back(*e);
  env.push_back("TMPDIR=" + tmp);
  return env;
}

// Runs argv as a child; returns exit status, fills the child's rusage
// (wait4: includes the descendants it waited for, i.e. clang's ld.lld).
int spawnWait(const Argv &a, const std::string &tmp, rusage &ru,
              bool quiet = false) {
  std::vector<char *> argv;
  for (const std::string &s : a)
    argv.push_back(const_cast<char *>(s.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env = envWithTmp(tmp);
  std::vector<char *> envp;
  for (std::string &s : env)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (quiet)
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    die("posix_spawn " + a[0] + ": " + strerror(rc));
  int status = 0;
  if (wait4(pid, &status, 0, &ru) < 0)
    die("wait4");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// --------------------------------------------------------------- in-process

struct InProcess {
  bool libsOnce = false;
  // libsonce: bitcode files of the device-library folders, read once.
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay;
  llvm::IntrusiveRefCntPtr<clang::FileManager> sharedFM;
  size_t preloadedBytes = 0, preloadedFiles = 0;
  // CPU of the last compile's cc1 and lld jobs (the rest is the driver).
  double lastCC1 = 0, lastLld = 0;

  void preloadDevLibs(const std::vector<Entry> &entries) {
    std::set<std::string> dirs;
    for (const Entry &e : entries)
      for (const Argv &c : e.commands)
        for (const std::string &s : c)
          if (llvm::StringRef(s).starts_with("--rocm-device-lib-path="))
            dirs.insert(s.substr(strlen("--rocm-device-lib-path=")));
    auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    for (const std::string &d : dirs) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(d, ec), end; it != end && !ec;
           it.increment(ec)) {
        if (!llvm::StringRef(it->path()).ends_with(".bc"))
          continue;
        auto buf = llvm::MemoryBuffer::getFile(it->path(), /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false);
        if (!buf)
          die("cannot read " + it->path());
        preloadedBytes += (*buf)->getBufferSize();
        ++preloadedFiles;
        // Copy into heap memory so later accesses never touch the file.
        auto copy = llvm::MemoryBuffer::getMemBufferCopy((*buf)->getBuffer(),
                                                         it->path());
        mem->addFile(it->path(), 0, std::move(copy));
      }
    }
    overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
        llvm::vfs::getRealFileSystem());
    overlay->pushOverlay(mem);
    sharedFM = llvm::makeIntrusiveRefCnt<clang::FileManager>(
        clang::FileSystemOptions(), overlay);
  }

  bool runCC1(const llvm::opt::ArgStringList &args, const char *argv0) {
    // args[0] is "-cc1".
    std::vector<const char *> cc1;
    for (size_t i = 1; i < args.size(); ++i) {
      // -disable-free makes cc1 leak its AST/module on purpose (the clang
      // process exits right after); a process that compiles many kernels
      // must free them.
      if (llvm::StringRef(args[i]) == "-disable-free")
        continue;
      cc1.push_back(args[i]);
    }
    auto clangInst = std::make_unique<clang::CompilerInstance>();
    llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> diagID(
        new clang::DiagnosticIDs());
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts =
        new clang::DiagnosticOptions();
    clang::TextDiagnosticBuffer *diagsBuffer = new clang::TextDiagnosticBuffer;
    clang::DiagnosticsEngine diags(diagID, &*diagOpts, diagsBuffer);
    bool ok = clang::CompilerInvocation::CreateFromArgs(
        clangInst->getInvocation(), cc1, diags, argv0);
    clangInst->createDiagnostics();
    if (!clangInst->hasDiagnostics())
      return false;
    diagsBuffer->FlushDiagnostics(clangInst->getDiagnostics());
    if (!ok)
      return false;
    if (libsOnce) {
      clangInst->setFileManager(sharedFM.get());
    }
    // -mllvm options are process-global cl::opts: forget the previous
    // compile's occurrences (and values) before cc1 parses this one's.
    llvm::cl::ResetAllOptionOccurrences();
    return clang::ExecuteCompilerInvocation(clangInst.get());
  }

  bool runLld(const llvm::opt::ArgStringList &args) {
    std::vector<const char *> a;
    a.push_back("ld.lld");
    for (const char *s : args)
      a.push_back(s);
    lld::Result r =
        lld::lldMain(a, llvm::outs(), llvm::errs(), {{lld::Gnu, &lld::elf::link}});
    return r.retCode == 0 && r.canRunAgain;
  }

  bool compile(const Argv &argvS, const std::string &tmp) {
    setenv("TMPDIR", tmp.c_str(), 1);
    std::vector<const char *> argv;
    for (const std::string &s : argvS)
      argv.push_back(s.c_str());
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts =
        new clang::DiagnosticOptions();
    auto *client = new clang::TextDiagnosticPrinter(llvm::errs(), &*diagOpts);
    llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> diagID(
        new clang::DiagnosticIDs());
    clang::DiagnosticsEngine diags(diagID, &*diagOpts, client);
    clang::driver::Driver driver(argv[0], llvm::sys::getDefaultTargetTriple(),
                                 diags, "clang LLVM compiler",
                                 libsOnce ? overlay : nullptr);
    std::unique_ptr<clang::driver::Compilation> comp(
        driver.BuildCompilation(argv));
    if (!comp || comp->containsError())
      return false;
    bool ok = true;
    lastCC1 = lastLld = 0;
    for (const clang::driver::Command &job : comp->getJobs()) {
      rusage jb = selfUsage();
      const llvm::opt::ArgStringList &args = job.getArguments();
      llvm::StringRef exe = llvm::sys::path::filename(job.getExecutable());
      if (!args.empty() && llvm::StringRef(args[0]) == "-cc1") {
        ok = runCC1(args, argv[0]);
        lastCC1 += cpuOf(selfUsage()) - cpuOf(jb);
      } else if (exe == "ld.lld" || exe == "lld" || exe.starts_with("ld.lld")) {
        ok = runLld(args);
        lastLld += cpuOf(selfUsage()) - cpuOf(jb);
      } else {
        llvm::errs() << "unsupported job: " << job.getExecutable() << "\n";
        ok = false;
      }
      if (!ok)
        break;
    }
    comp->CleanupFileList(comp->getTempFiles());
    return ok;
  }
};

void initTargets() {
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::InitializeAllAsmParsers();
}

int workerMain(const std::string &cmdFile, const std::string &mode) {
  // Protocol on a private copy of stdout; anything the compilers print goes
  // to stderr.
  int proto = dup(1);
  dup2(2, 1);
  FILE *out = fdopen(proto, "w");
  initTargets();
  std::vector<Entry> entries = loadCommands(cmdFile);
  InProcess ip;
  ip.libsOnce = mode == "libsonce";
  rusage r0 = selfUsage();
  if (ip.libsOnce)
    ip.preloadDevLibs(entries);
  rusage r1 = selfUsage();
  fprintf(out, "READY %.6f %.6f %zu %zu\n", cpuOf(r0), cpuOf(r1) - cpuOf(r0),
          ip.preloadedFiles, ip.preloadedBytes);
  fflush(out);
  char line[8192];
  while (fgets(line, sizeof line, stdin)) {
    unsigned idx;
    char outPath[4096], scratch[4096];
    if (sscanf(line, "%u %4095s %4095s", &idx, outPath, scratch) != 3)
      break;
    const Argv &a = entries.at(idx).commands.at(0);
    Argv s = substitute(a, outPath, scratch);
    rusage b = selfUsage();
    bool ok = ip.compile(s, scratch);
    rusage e = selfUsage();
    fprintf(out, "%s %.6f %.6f %.6f %.6f\n", ok ? "OK" : "FAIL",
            tv(e.ru_utime) - tv(b.ru_utime), tv(e.ru_stime) - tv(b.ru_stime),
            ip.lastCC1, ip.lastLld);
    fflush(out);
  }
  return 0;
}

// ------------------------------------------------------------- orchestrator

struct Worker {
  pid_t pid = -1;
  FILE *to = nullptr, *from = nullptr;
  double readyCpu = 0, preloadCpu = 0;

  void start(const std::string &self, const std::string &cmdFile,
             const std::string &workdir, const std::string &mode) {
    int in[2], outp[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(outp, O_CLOEXEC))
      die("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, outp[0]);
    const char *argv[] = {self.c_str(), "worker", cmdFile.c_str(),
                          workdir.c_str(), mode.c_str(), nullptr};
    if (posix_spawn(&pid, self.c_str(), &fa, nullptr,
                    const_cast<char **>(argv), environ))
      die("spawn worker");
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(outp[1]);
    to = fdopen(in[1], "w");
    from = fdopen(outp[0], "r");
    char line[512];
    if (!fgets(line, sizeof line, from))
      die("worker did not start");
    size_t nf, nb;
    if (sscanf(line, "READY %lf %lf %zu %zu", &readyCpu, &preloadCpu, &nf,
               &nb) != 4)
      die(std::string("bad worker hello: ") + line);
  }
  bool run(unsigned idx, const std::string &out, const std::string &scratch,
           double &cpu, double &cc1, double &lld) {
    fprintf(to, "%u %s %s\n", idx, out.c_str(), scratch.c_str());
    fflush(to);
    char line[512], st[16];
    double u, s;
    if (!fgets(line, sizeof line, from) ||
        sscanf(line, "%15s %lf %lf %lf %lf", st, &u, &s, &cc1, &lld) != 5)
      die("worker died");
    cpu = u + s;
    return strcmp(st, "OK") == 0;
  }
  double finish() {
    fclose(to);
    fclose(from);
    int status;
    rusage ru;
    wait4(pid, &status, 0, &ru);
    return cpuOf(ru);
  }
};

// The ld.lld command line the clang driver would run for argv, with its
// temporary object replaced by obj.
Argv lldArgsFor(const Argv &a, const std::string &obj) {
  std::vector<const char *> argv;
  for (const std::string &s : a)
    argv.push_back(s.c_str());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts =
      new clang::DiagnosticOptions();
  clang::DiagnosticsEngine diags(
      new clang::DiagnosticIDs(), &*diagOpts,
      new clang::TextDiagnosticPrinter(llvm::errs(), &*diagOpts));
  clang::driver::Driver driver(argv[0], llvm::sys::getDefaultTargetTriple(),
                               diags);
  std::unique_ptr<clang::driver::Compilation> comp(
      driver.BuildCompilation(argv));
  std::string tmpObj;
  Argv link;
  for (const clang::driver::Command &job : comp->getJobs()) {
    const auto &args = job.getArguments();
    if (!args.empty() && llvm::StringRef(args[0]) == "-cc1") {
      for (size_t k = 0; k + 1 < args.size(); ++k)
        if (llvm::StringRef(args[k]) == "-o")
          tmpObj = args[k + 1];
    } else {
      link.push_back(job.getExecutable());
      for (const char *x : args)
        link.push_back(x == tmpObj ? obj : std::string(x));
    }
  }
  comp->CleanupFileList(comp->getTempFiles());
  if (link.empty())
    die("no link job for " + a.back());
  return link;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool sameFile(const std::string &a, const std::string &b) {
  auto x = llvm::MemoryBuffer::getFile(a, false, false);
  auto y = llvm::MemoryBuffer::getFile(b, false, false);
  return x && y && (*x)->getBuffer() == (*y)->getBuffer();
}

std::string selfExe(const char *argv0) {
  return llvm::sys::fs::getMainExecutable(argv0, (void *)&selfExe);
}

int runMain(const char *argv0, const std::string &cmdFile,
            const std::string &workdir, int passes) {
  std::string self = selfExe(argv0);
  std::vector<Entry> entries = loadCommands(cmdFile);
  size_t n = entries.size();
  enum Side { A = 0, AC, B, C, AS, SPLIT, NSIDES };
  const char *sideName[] = {"A", "Ac", "B", "C", "As", "S"};
  // BENCH_SPLIT=1 adds side S: still external, but as two processes,
  // `clang ARGS -c -o scratch/k.o` then `ld.lld` with the link arguments the
  // driver would use (clang runs cc1 in a separate process whenever the
  // compilation has more than one job, so A is three processes).
  bool withSplit = getenv("BENCH_SPLIT") && atoi(getenv("BENCH_SPLIT"));
  // BENCH_SYNTAX=1 adds side As: the external command with -fsyntax-only
  // (preprocess + parse + sema only: the part a precompiled header targets).
  bool withSyntax = getenv("BENCH_SYNTAX") && atoi(getenv("BENCH_SYNTAX"));
  // cpu[side][cmd] -> per-pass values
  std::vector<std::vector<std::vector<double>>> cpu(
      NSIDES, std::vector<std::vector<double>>(n));
  std::vector<std::vector<bool>> okv(NSIDES, std::vector<bool>(n, true));
  // in-process split: cc1 job and lld job CPU, for B and C
  std::vector<std::vector<double>> cc1B(n), lldB(n), cc1C(n), lldC(n);
  std::vector<double> startB, startC, exitB, exitC, preloadC, noopCpu,
      clangVer, lldVer;
  std::string clangPath = entries[0].commands[0][0];
  std::string lldPath =
      (llvm::sys::path::parent_path(clangPath) + "/ld.lld").str();
  std::string tmpRoot = workdir + "/tmp";
  mkdirs(tmpRoot);
  for (int p = 0; p < passes; ++p) {
    rusage ru;
    spawnWait({self, "noop"}, tmpRoot, ru);
    noopCpu.push_back(cpuOf(ru));
    spawnWait({clangPath, "--version"}, tmpRoot, ru, true);
    clangVer.push_back(cpuOf(ru));
    spawnWait({lldPath, "--version"}, tmpRoot, ru, true);
    lldVer.push_back(cpuOf(ru));
    Worker wb, wc;
    wb.start(self, cmdFile, workdir, "inproc");
    wc.start(self, cmdFile, workdir, "libsonce");
    startB.push_back(wb.readyCpu);
    startC.push_back(wc.readyCpu);
    preloadC.push_back(wc.preloadCpu);
    double sumB = 0, sumC = 0;
    for (size_t i = 0; i < n; ++i) {
      std::vector<int> order = {A, AC, B, C};
      if (withSyntax)
        order.push_back(AS);
      if (withSplit)
        order.push_back(SPLIT);
      std::rotate(order.begin(), order.begin() + (p + i) % order.size(),
                  order.end());
      for (int side : order) {
        std::string dir = workdir + "/p" + std::to_string(p) + "/" +
                          sideName[side];
        std::string scratch = dir + "/scratch" + std::to_string(i);
        mkdirs(scratch);
        std::string out =
            dir + "/" + std::to_string(i) + (side == AC ? ".o" : ".co");
        double c = 0;
        bool ok = true;
        if (side == A || side == AC || side == AS) {
          Argv a = substitute(entries[i].commands[0], out, scratch);
          if (side == AC)
            a.insert(a.begin() + 1, "-c");
          if (side == AS)
            a.insert(a.begin() + 1, "-fsyntax-only");
          ok = spawnWait(a, scratch, ru) == 0;
          c = cpuOf(ru);
        } else if (side == SPLIT) {
          Argv a = substitute(entries[i].commands[0], out, scratch);
          Argv link = lldArgsFor(a, scratch + "/k.o");
          a.insert(a.begin() + 1, "-c");
          for (size_t k = 0; k + 1 < a.size(); ++k)
            if (a[k] == "-o")
              a[k + 1] = scratch + "/k.o";
          rusage r2;
          ok = spawnWait(a, scratch, ru) == 0;
          ok = ok && spawnWait(link, scratch, r2) == 0;
          c = cpuOf(ru) + cpuOf(r2);
        } else if (side == B) {
          double x, y;
          ok = wb.run(i, out, scratch, c, x, y);
          cc1B[i].push_back(x);
          lldB[i].push_back(y);
          sumB += c;
        } else {
          double x, y;
          ok = wc.run(i, out, scratch, c, x, y);
          cc1C[i].push_back(x);
          lldC[i].push_back(y);
          sumC += c;
        }
        cpu[side][i].push_back(c);
        if (!ok)
          okv[side][i] = false;
        fprintf(stderr, "pass %d cmd %zu %-2s %7.3f s %s\n", p, i,
                sideName[side], c, ok ? "" : "FAILED");
      }
    }
    double totB = wb.finish(), totC = wc.finish();
    exitB.push_back(totB - wb.readyCpu - sumB);
    exitC.push_back(totC - wc.readyCpu - sumC);
  }
  // Identity check on pass 0 outputs (and across passes for B).
  std::vector<bool> sameB(n), sameC(n);
  for (size_t i = 0; i < n; ++i) {
    std::string base = workdir + "/p0/";
    std::string f = std::to_string(i) + ".co";
    sameB[i] = sameFile(base + "A/" + f, base + "B/" + f);
    sameC[i] = sameFile(base + "A/" + f, base + "C/" + f);
  }
  FILE *tsv = fopen((workdir + "/results.tsv").c_str(), "w");
  fprintf(tsv, "idx\tkernel_file\tA\tAc\tB\tC\tAs\tB_ident\tC_ident\tok\n");
  printf("%-4s %-42s %8s %8s %8s %8s %6s %6s %s\n", "#", "source", "A",
         "A -c", "B", "C", "A/B", "A/C", "B==A C==A");
  double tA = 0, tAC = 0, tB = 0, tC = 0, tAS = 0, tSP = 0;
  for (size_t i = 0; i < n; ++i) {
    double a = median(cpu[A][i]), ac = median(cpu[AC][i]),
           b = median(cpu[B][i]), c = median(cpu[C][i]);
    tA += a, tAC += ac, tB += b, tC += c;
    std::string src;
    for (const std::string &s : entries[i].commands[0])
      if (llvm::StringRef(s).ends_with(".cl") ||
          llvm::StringRef(s).ends_with(".cpp"))
        src = llvm::sys::path::filename(s).str();
    bool allok = okv[A][i] && okv[AC][i] && okv[B][i] && okv[C][i] &&
                 okv[AS][i] && okv[SPLIT][i];
    double sp = median(cpu[SPLIT][i]);
    tSP += sp;
    if (withSplit)
      fprintf(stderr, "split %zu %.4f identical %s\n", i, sp,
              sameFile(workdir + "/p0/A/" + std::to_string(i) + ".co",
                       workdir + "/p0/S/" + std::to_string(i) + ".co")
                  ? "yes"
                  : "NO");
    double as = median(cpu[AS][i]);
    tAS += as;
    printf("%-4zu %-42s %8.3f %8.3f %8.3f %8.3f %6.3f %6.3f %s %s%s\n", i,
           src.c_str(), a, ac, b, c, a / b, a / c, sameB[i] ? "yes" : "NO",
           sameC[i] ? "yes" : "NO", allok ? "" : " (FAILED run)");
    fprintf(tsv, "%zu\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t%d\n",
            i, src.c_str(), a, ac, b, c, as, (int)sameB[i], (int)sameC[i],
            (int)allok);
  }
  printf("sum  %-42s %8.3f %8.3f %8.3f %8.3f %6.3f %6.3f\n", "", tA, tAC, tB,
         tC, tA / tB, tA / tC);
  printf("mean per compile %30s %8.3f %8.3f %8.3f %8.3f\n", "", tA / n,
         tAC / n, tB / n, tC / n);
  {
    double a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i < n; ++i)
      a += median(cc1B[i]), b += median(lldB[i]), c += median(cc1C[i]),
          d += median(lldC[i]);
    printf("in-process split, mean per compile: B cc1 %.3f lld %.3f driver+rest "
           "%.3f; C cc1 %.3f lld %.3f driver+rest %.3f\n",
           a / n, b / n, tB / n - a / n - b / n, c / n, d / n,
           tC / n - c / n - d / n);
  }
  if (withSplit)
    printf("external split (clang -c; ld.lld): sum %.3f, mean per compile "
           "%.3f, A/S %.3f\n",
           tSP, tSP / n, tA / tSP);
  if (withSyntax)
    printf("external -fsyntax-only: sum %.3f, mean per compile %.3f\n", tAS,
           tAS / n);
  printf("(sum of per-command medians; CPU s = user+sys; A via wait4 incl. "
         "ld.lld child)\n");
  printf("process start, median of %d passes (CPU s):\n", passes);
  printf("  clang --version            %.4f\n", median(clangVer));
  printf("  ld.lld --version           %.4f\n", median(lldVer));
  printf("  inprocess_bench noop       %.4f (spawn..exit, libs loaded, "
         "targets initialised)\n",
         median(noopCpu));
  printf("  B worker until ready       %.4f (once per pass)\n",
         median(startB));
  printf("  C worker until ready       %.4f (+ devlib preload %.4f)\n",
         median(startC), median(preloadC));
  printf("  B worker exit/teardown     %.4f\n", median(exitB));
  printf("  C worker exit/teardown     %.4f\n", median(exitC));
  fprintf(tsv, "#clang_version\t%.4f\n#lld_version\t%.4f\n#noop\t%.4f\n"
               "#startB\t%.4f\n#startC\t%.4f\n#preloadC\t%.4f\n",
          median(clangVer), median(lldVer), median(noopCpu), median(startB),
          median(startC), median(preloadC));
  fclose(tsv);
  return 0;
}

// Per-compile cost of what "device libraries parsed once" could save: for
// the device-library files cc1 links into command INDEX (its
// -mlink-builtin-bitcode arguments), the CPU of reading each file and
// creating the lazy module clang's CodeGenAction creates per compile
// (llvm::getOwningLazyBitcodeModule: module-level records, no function bodies), in
// a fresh LLVMContext, and separately the lazy load from bytes already in
// memory. Function bodies materialised by the linker are not included.
int devlibCostMain(const std::string &cmdFile, unsigned idx, int reps) {
  initTargets();
  std::vector<Entry> entries = loadCommands(cmdFile);
  Argv a = substitute(entries.at(idx).commands.at(0), "/dev/null", "/tmp");
  std::vector<const char *> argv;
  for (const std::string &s : a)
    argv.push_back(s.c_str());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts =
      new clang::DiagnosticOptions();
  clang::DiagnosticsEngine diags(
      new clang::DiagnosticIDs(), &*diagOpts,
      new clang::TextDiagnosticPrinter(llvm::errs(), &*diagOpts));
  clang::driver::Driver driver(argv[0], llvm::sys::getDefaultTargetTriple(),
                               diags);
  std::unique_ptr<clang::driver::Compilation> comp(
      driver.BuildCompilation(argv));
  std::vector<std::string> files;
  for (const clang::driver::Command &job : comp->getJobs()) {
    const auto &args = job.getArguments();
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (llvm::StringRef(args[i]) == "-mlink-builtin-bitcode")
        files.push_back(args[i + 1]);
  }
  std::vector<double> withRead, fromMem;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> kept;
  for (const std::string &f : files)
    kept.push_back(std::move(*llvm::MemoryBuffer::getFile(f, false, false)));
  size_t bytes = 0;
  for (auto &k : kept)
    bytes += k->getBufferSize();
  for (int r = 0; r < reps; ++r) {
    {
      rusage b = selfUsage();
      llvm::LLVMContext ctx;
      std::vector<std::unique_ptr<llvm::Module>> mods;
      for (const std::string &f : files) {
        auto buf = llvm::MemoryBuffer::getFile(f, false, false);
        auto m = llvm::getOwningLazyBitcodeModule(std::move(*buf), ctx);
        if (!m)
          die("bitcode " + f);
        mods.push_back(std::move(*m));
      }
      mods.clear();
      rusage e = selfUsage();
      withRead.push_back(cpuOf(e) - cpuOf(b));
    }
    {
      rusage b = selfUsage();
      llvm::LLVMContext ctx;
      std::vector<std::unique_ptr<llvm::Module>> mods;
      for (auto &k : kept) {
        auto m = llvm::getOwningLazyBitcodeModule(
            llvm::MemoryBuffer::getMemBuffer(k->getMemBufferRef(), false), ctx);
        if (!m)
          die("bitcode");
        mods.push_back(std::move(*m));
      }
      mods.clear();
      rusage e = selfUsage();
      fromMem.push_back(cpuOf(e) - cpuOf(b));
    }
  }
  std::sort(withRead.begin(), withRead.end());
  std::sort(fromMem.begin(), fromMem.end());
  printf("%u\t%zu files\t%zu bytes\tread+lazy-parse median %.4f s\t"
         "lazy-parse from memory median %.4f s (%d reps)\n",
         idx, files.size(), bytes, withRead[reps / 2], fromMem[reps / 2],
         reps);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "noop")) {
    initTargets();
    return 0;
  }
  if (argc >= 5 && !strcmp(argv[1], "worker"))
    return workerMain(argv[2], argv[4]);
  if (argc >= 5 && !strcmp(argv[1], "once")) {
    initTargets();
    std::vector<Entry> entries = loadCommands(argv[2]);
    InProcess ip;
    ip.libsOnce = argc >= 6 && !strcmp(argv[5], "libsonce");
    if (ip.libsOnce)
      ip.preloadDevLibs(entries);
    std::string out = argv[4];
    std::string scratch = out + ".scratch";
    mkdirs(scratch);
    Argv s = substitute(entries.at(atoi(argv[3])).commands.at(0), out, scratch);
    rusage b = selfUsage();
    bool ok = ip.compile(s, scratch);
    rusage e = selfUsage();
    fprintf(stderr, "%s cpu %.3f s\n", ok ? "ok" : "FAILED", cpuOf(e) - cpuOf(b));
    return ok ? 0 : 1;
  }
  if (argc >= 4 && !strcmp(argv[1], "devlibcost"))
    return devlibCostMain(argv[2], atoi(argv[3]), argc >= 5 ? atoi(argv[4]) : 9);
  if (argc >= 4 && !strcmp(argv[1], "run"))
    return runMain(argv[0], argv[2], argv[3], argc >= 5 ? atoi(argv[4]) : 3);
  fprintf(stderr, "usage: see header of inprocess_bench.cpp\n");
  return 2;
}
